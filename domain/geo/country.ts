/**
 * Countries from country-coder's borders: whether a point given with a country code lies in
 * that country (the check behind a location's rule; ../iso_codes.ts says which codes exist).
 */
import { featuresContaining } from "@rapideditor/country-coder";

/**
 * A point in no country passes when the named country lies this close: country-coder's sea
 * borders are generalized, and a harbour or a beach must not be refused for lying just off them.
 */
export const COASTAL_MARGIN_KM = 25;

const KM_PER_DEGREE = 111.32;

/** Every official ISO code of the features that contain the point or box (territory and country). */
function codesAt(query: [number, number] | [number, number, number, number]): string[] {
  return featuresContaining(query)
    .filter((f) => f.properties.iso1A2 && f.properties.isoStatus === "official")
    .map((f) => f.properties.iso1A2 as string);
}

/** Boxes of ±COASTAL_MARGIN_KM around the point, split where they cross the antimeridian. */
function marginBoxes([lon, lat]: [number, number]): [number, number, number, number][] {
  const dLat = COASTAL_MARGIN_KM / KM_PER_DEGREE;
  const cos = Math.cos((lat * Math.PI) / 180);
  const dLon = Math.min(180, COASTAL_MARGIN_KM / (KM_PER_DEGREE * Math.max(cos, 1e-6)));
  const minLat = Math.max(-90, lat - dLat);
  const maxLat = Math.min(90, lat + dLat);
  const [west, east] = [lon - dLon, lon + dLon];
  const boxes: [number, number, number, number][] = [
    [Math.max(-180, west), minLat, Math.min(180, east), maxLat],
  ];
  if (west < -180) boxes.push([west + 360, minLat, 180, maxLat]);
  if (east > 180) boxes.push([-180, minLat, east - 360, maxLat]);
  return boxes;
}

/**
 * Null when `[lon, lat]` lies in the country `code` (or in no country, within the coastal
 * margin of it); else the message that says where it lies, and asks whether longitude and
 * latitude were swapped when the swapped pair lies in that country.
 */
export function countryMismatch(coordinates: [number, number], code: string): string | null {
  const [lon, lat] = coordinates;
  const here = codesAt(coordinates);
  if (here.includes(code)) return null;
  if (here.length === 0 && marginBoxes(coordinates).some((box) => codesAt(box).includes(code))) {
    return null;
  }
  const where = here.length > 0
    ? `lies in ${here[0]}, not in ${code}`
    : `lies in no country, and farther than ${COASTAL_MARGIN_KM} km from ${code}`;
  const swapped = Math.abs(lon) <= 90 && codesAt([lat, lon]).includes(code);
  return `[${lon}, ${lat}] ${where}; coordinates are [longitude, latitude]` +
    (swapped ? `: did you swap them? [${lat}, ${lon}] lies in ${code}` : "");
}
