/** Base64 and base64url for byte arrays (the npm-free stand-in for @std/encoding). */

/** Encodes bytes as standard base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Decodes standard base64; an invalid input yields an empty array. */
export function decodeBase64(text: string): Uint8Array {
  try {
    return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

/** Encodes bytes as unpadded base64url, for cursors and tokens in URLs. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return urlAlphabet(encodeBase64(bytes));
}

const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * `encodeBase64Url` of a text's UTF-8 bytes. An ASCII text is its own bytes, one character each,
 * which `btoa` takes as they are: no encoder and no byte-by-byte string.
 */
export function encodeTextBase64Url(text: string): string {
  if (NOT_ASCII.test(text)) return encodeBase64Url(new TextEncoder().encode(text));
  return urlAlphabet(btoa(text));
}

const urlAlphabet = (base64: string) =>
  base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/** Decodes unpadded base64url; an invalid input yields an empty array. */
export function decodeBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return new Uint8Array();
  return decodeBase64(text.replaceAll("-", "+").replaceAll("_", "/"));
}
