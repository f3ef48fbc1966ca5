/**
 * Where the explore benchmark's tasks are: 50 large cities where 80% cluster, land areas for the
 * scattered ones, and a task's location (type, point, country, radius) drawn among them.
 */
import { countryMismatch } from "../../domain/geo/country.ts";
import type { Location } from "../../domain/tasks/task.ts";
import { gaussian, pick, pickCumulative } from "./explore_data_random.ts";

interface City {
  name: string;
  cc: string;
  currency: string;
  lon: number;
  lat: number;
  sigmaKm: number;
}

/** 50 large cities, roughly by population: the 80% of tasks that cluster. */
export const CITIES: readonly City[] = [
  { name: "Tokyo", cc: "JP", currency: "JPY", lon: 139.6917, lat: 35.6895, sigmaKm: 25 },
  { name: "Delhi", cc: "IN", currency: "INR", lon: 77.1025, lat: 28.7041, sigmaKm: 20 },
  { name: "Shanghai", cc: "CN", currency: "CNY", lon: 121.4737, lat: 31.2304, sigmaKm: 20 },
  { name: "São Paulo", cc: "BR", currency: "BRL", lon: -46.6333, lat: -23.5505, sigmaKm: 20 },
  { name: "Ciudad de México", cc: "MX", currency: "MXN", lon: -99.1332, lat: 19.4326, sigmaKm: 18 },
  { name: "Cairo", cc: "EG", currency: "EGP", lon: 31.2357, lat: 30.0444, sigmaKm: 15 },
  { name: "Mumbai", cc: "IN", currency: "INR", lon: 72.8777, lat: 19.076, sigmaKm: 15 },
  { name: "Beijing", cc: "CN", currency: "CNY", lon: 116.4074, lat: 39.9042, sigmaKm: 20 },
  { name: "Dhaka", cc: "BD", currency: "BDT", lon: 90.4125, lat: 23.8103, sigmaKm: 10 },
  { name: "Ōsaka", cc: "JP", currency: "JPY", lon: 135.5023, lat: 34.6937, sigmaKm: 15 },
  { name: "New York", cc: "US", currency: "USD", lon: -74.006, lat: 40.7128, sigmaKm: 20 },
  { name: "Karachi", cc: "PK", currency: "PKR", lon: 67.0099, lat: 24.8615, sigmaKm: 15 },
  { name: "Buenos Aires", cc: "AR", currency: "ARS", lon: -58.3816, lat: -34.6037, sigmaKm: 18 },
  { name: "İstanbul", cc: "TR", currency: "TRY", lon: 28.9784, lat: 41.0082, sigmaKm: 15 },
  { name: "Kolkata", cc: "IN", currency: "INR", lon: 88.3639, lat: 22.5726, sigmaKm: 15 },
  { name: "Manila", cc: "PH", currency: "PHP", lon: 120.9842, lat: 14.5995, sigmaKm: 15 },
  { name: "Lagos", cc: "NG", currency: "NGN", lon: 3.3792, lat: 6.5244, sigmaKm: 15 },
  { name: "Rio de Janeiro", cc: "BR", currency: "BRL", lon: -43.1729, lat: -22.9068, sigmaKm: 15 },
  { name: "Guangzhou", cc: "CN", currency: "CNY", lon: 113.2644, lat: 23.1291, sigmaKm: 15 },
  { name: "Los Angeles", cc: "US", currency: "USD", lon: -118.2437, lat: 34.0522, sigmaKm: 25 },
  { name: "Moskva", cc: "RU", currency: "RUB", lon: 37.6173, lat: 55.7558, sigmaKm: 18 },
  { name: "Kinshasa", cc: "CD", currency: "CDF", lon: 15.2663, lat: -4.4419, sigmaKm: 15 },
  { name: "Paris", cc: "FR", currency: "EUR", lon: 2.3522, lat: 48.8566, sigmaKm: 15 },
  { name: "Jakarta", cc: "ID", currency: "IDR", lon: 106.8456, lat: -6.2088, sigmaKm: 15 },
  { name: "London", cc: "GB", currency: "GBP", lon: -0.1276, lat: 51.5072, sigmaKm: 18 },
  { name: "Lima", cc: "PE", currency: "PEN", lon: -77.0428, lat: -12.0464, sigmaKm: 15 },
  { name: "Bangkok", cc: "TH", currency: "THB", lon: 100.5018, lat: 13.7563, sigmaKm: 15 },
  { name: "Seoul", cc: "KR", currency: "KRW", lon: 126.978, lat: 37.5665, sigmaKm: 15 },
  { name: "Bogotá", cc: "CO", currency: "COP", lon: -74.0721, lat: 4.711, sigmaKm: 12 },
  { name: "Chicago", cc: "US", currency: "USD", lon: -87.6298, lat: 41.8781, sigmaKm: 15 },
  { name: "Tehran", cc: "IR", currency: "IRR", lon: 51.389, lat: 35.6892, sigmaKm: 15 },
  { name: "Ho Chi Minh City", cc: "VN", currency: "VND", lon: 106.6297, lat: 10.8231, sigmaKm: 15 },
  { name: "Hong Kong", cc: "HK", currency: "HKD", lon: 114.1694, lat: 22.3193, sigmaKm: 10 },
  { name: "Madrid", cc: "ES", currency: "EUR", lon: -3.7038, lat: 40.4168, sigmaKm: 15 },
  { name: "Toronto", cc: "CA", currency: "CAD", lon: -79.3832, lat: 43.6532, sigmaKm: 15 },
  { name: "Berlin", cc: "DE", currency: "EUR", lon: 13.405, lat: 52.52, sigmaKm: 15 },
  { name: "Sydney", cc: "AU", currency: "AUD", lon: 151.2093, lat: -33.8688, sigmaKm: 20 },
  { name: "Johannesburg", cc: "ZA", currency: "ZAR", lon: 28.0473, lat: -26.2041, sigmaKm: 15 },
  { name: "Nairobi", cc: "KE", currency: "KES", lon: 36.8219, lat: -1.2921, sigmaKm: 12 },
  { name: "Singapore", cc: "SG", currency: "SGD", lon: 103.8198, lat: 1.3521, sigmaKm: 10 },
  { name: "Riyadh", cc: "SA", currency: "SAR", lon: 46.6753, lat: 24.7136, sigmaKm: 15 },
  { name: "Santiago", cc: "CL", currency: "CLP", lon: -70.6693, lat: -33.4489, sigmaKm: 15 },
  { name: "Milano", cc: "IT", currency: "EUR", lon: 9.19, lat: 45.4642, sigmaKm: 12 },
  { name: "Barcelona", cc: "ES", currency: "EUR", lon: 2.1734, lat: 41.3851, sigmaKm: 12 },
  { name: "Montréal", cc: "CA", currency: "CAD", lon: -73.5674, lat: 45.5019, sigmaKm: 12 },
  { name: "Melbourne", cc: "AU", currency: "AUD", lon: 144.9631, lat: -37.8136, sigmaKm: 20 },
  { name: "San Francisco", cc: "US", currency: "USD", lon: -122.4194, lat: 37.7749, sigmaKm: 20 },
  { name: "München", cc: "DE", currency: "EUR", lon: 11.582, lat: 48.1351, sigmaKm: 12 },
  { name: "Warszawa", cc: "PL", currency: "PLN", lon: 21.0122, lat: 52.2297, sigmaKm: 12 },
  { name: "Auckland", cc: "NZ", currency: "NZD", lon: 174.7633, lat: -36.8485, sigmaKm: 12 },
];

// Bigger cities get more tasks (Zipf-like, exponent 0.7): Tokyo ~5.6%, Auckland ~1.1%.
const CITY_CUMULATIVE: number[] = (() => {
  const weights = CITIES.map((_, rank) => 1 / (rank + 1) ** 0.7);
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((w) => (sum += w / total));
})();

interface LandBox {
  cc: string;
  currency: string;
  west: number;
  south: number;
  east: number;
  north: number;
}

/** Rough rectangles inside large land masses: where the 20% of scattered tasks fall. */
export const LAND: readonly LandBox[] = [
  { cc: "US", currency: "USD", west: -120, south: 33, east: -80, north: 47 },
  { cc: "CA", currency: "CAD", west: -120, south: 50, east: -75, north: 60 },
  { cc: "BR", currency: "BRL", west: -60, south: -25, east: -40, north: -5 },
  { cc: "AR", currency: "ARS", west: -70, south: -45, east: -60, north: -25 },
  { cc: "RU", currency: "RUB", west: 40, south: 52, east: 130, north: 68 },
  { cc: "KZ", currency: "KZT", west: 50, south: 42, east: 85, north: 52 },
  { cc: "CN", currency: "CNY", west: 90, south: 25, east: 118, north: 45 },
  { cc: "IN", currency: "INR", west: 73, south: 12, east: 87, north: 28 },
  { cc: "AU", currency: "AUD", west: 117, south: -33, east: 150, north: -20 },
  { cc: "DZ", currency: "DZD", west: -5, south: 20, east: 10, north: 32 },
  { cc: "NE", currency: "XOF", west: 2, south: 13, east: 15, north: 22 },
  { cc: "CD", currency: "CDF", west: 15, south: -10, east: 30, north: 2 },
  { cc: "ZA", currency: "ZAR", west: 18, south: -33, east: 31, north: -24 },
  { cc: "FR", currency: "EUR", west: -1, south: 43, east: 6, north: 49 },
  { cc: "MN", currency: "MNT", west: 90, south: 43, east: 115, north: 50 },
];

const LAND_CUMULATIVE: number[] = (() => {
  const area = LAND.map((b) =>
    (b.east - b.west) *
    Math.abs(Math.sin(b.north * Math.PI / 180) - Math.sin(b.south * Math.PI / 180))
  );
  const total = area.reduce((a, b) => a + b, 0);
  let sum = 0;
  return area.map((w) => (sum += w / total));
})();

const FIRST = ["North", "East", "West", "South", "Upper", "Lower", "New", "Old", "Little", "Great"];
const STEMS = ["brook", "field", "ford", "ham", "wood", "vale", "ridge", "stone", "water", "moor"];

export const KM_PER_DEGREE = 111.32;

function radiusKm(rnd: () => number): number {
  const r = rnd();
  // Every radius class of the geo index: ≤25, ≤100, ≤500 km.
  if (r < 0.6) return 1 + Math.floor(rnd() * 25);
  if (r < 0.9) return 26 + Math.floor(rnd() * 75);
  return 101 + Math.floor(rnd() * 400);
}

function clamp(v: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, v));
}

/** A task's location and its country's currency. */
export function location(rnd: () => number): { location: Location; currency: string } {
  const r = rnd();
  if (r < 0.03) {
    return {
      location: { type: "world", name: "Remote", coordinates: [0, 0] },
      currency: "USD",
    };
  }
  let lon: number, lat: number, cc: string, currency: string, name: string;
  if (r < 0.83) {
    const city = CITIES[pickCumulative(CITY_CUMULATIVE, rnd())];
    lat = clamp(city.lat + gaussian(rnd) * city.sigmaKm / KM_PER_DEGREE, -89.9, 89.9);
    const lonScale = KM_PER_DEGREE * Math.cos(lat * Math.PI / 180);
    lon = clamp(city.lon + gaussian(rnd) * city.sigmaKm / lonScale, -180, 180);
    cc = city.cc;
    currency = city.currency;
    name = city.name;
  } else {
    const land = LAND[pickCumulative(LAND_CUMULATIVE, rnd())];
    lon = land.west + rnd() * (land.east - land.west);
    const s = Math.sin(land.south * Math.PI / 180);
    const n = Math.sin(land.north * Math.PI / 180);
    lat = Math.asin(s + rnd() * (n - s)) * 180 / Math.PI;
    cc = land.cc;
    currency = land.currency;
    name = `${pick(FIRST, rnd)}${pick(STEMS, rnd)}`;
  }
  const coordinates: [number, number] = [
    Math.round(lon * 1e5) / 1e5,
    Math.round(lat * 1e5) / 1e5,
  ];
  // The boxes are rough and the clusters spill over borders: such a point names no country.
  const countryCode = countryMismatch(coordinates, cc) ? undefined : cc;
  const t = rnd();
  if (t < 0.75) {
    return { location: { type: "city", name, countryCode, coordinates }, currency };
  }
  if (t < 0.95) {
    return {
      location: { type: "radius", name, countryCode, coordinates, radiusKm: radiusKm(rnd) },
      currency,
    };
  }
  return { location: { type: "country", name: cc, countryCode, coordinates }, currency };
}
