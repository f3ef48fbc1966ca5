/** Code lists a task is checked against: ISO 3166-1 alpha-2 countries and ISO 4217 currencies. */
import { borders, feature } from "@rapideditor/country-coder";

// The runtime's ICU list of current ISO 4217 codes; a short fallback keeps the check meaningful
// on a runtime without Intl.supportedValuesOf.
const CURRENCY_CODES: ReadonlySet<string> = new Set(
  typeof Intl.supportedValuesOf === "function"
    ? Intl.supportedValuesOf("currency")
    : ["EUR", "USD", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR", "BRL"],
);

/**
 * True for an officially assigned ISO 3166-1 alpha-2 code in upper case ("FR", not "fr"): the
 * codes of country-coder's borders, so every code accepted is one a point can be checked against.
 * Intl knows more region codes than ISO assigns (EU, UK, XK, ZZ...), so it cannot serve.
 */
export function isCountryCode(code: string): boolean {
  // feature() also resolves "fr", "FRA", "250" and regions: only an exact, official match counts.
  const props = feature(code)?.properties;
  return props?.iso1A2 === code && props.isoStatus === "official";
}

/** True for a current ISO 4217 currency code in upper case ("EUR", not "eur"). */
export function isCurrencyCode(code: string): boolean {
  return CURRENCY_CODES.has(code);
}

/** Every code isCountryCode accepts, sorted: the document lists them. */
export function countryCodes(): string[] {
  const codes = new Set<string>();
  for (const { properties: p } of borders.features) {
    if (p.iso1A2 && p.isoStatus === "official") codes.add(p.iso1A2);
  }
  return [...codes].sort();
}

/** Every code isCurrencyCode accepts, sorted: the document lists them. */
export function currencyCodes(): string[] {
  return [...CURRENCY_CODES].sort();
}
