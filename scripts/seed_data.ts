/** Demo data for `deno task seed`: real cities, neighbours and everyday tasks to post. */

export interface City {
  name: string;
  countryCode: string;
  currency: string;
  /** [longitude, latitude] of the city centre. */
  coordinates: [number, number];
}

export const CITIES: readonly City[] = [
  { name: "Paris", countryCode: "FR", currency: "EUR", coordinates: [2.3522, 48.8566] },
  { name: "Lyon", countryCode: "FR", currency: "EUR", coordinates: [4.8357, 45.764] },
  { name: "Marseille", countryCode: "FR", currency: "EUR", coordinates: [5.3698, 43.2965] },
  { name: "Bordeaux", countryCode: "FR", currency: "EUR", coordinates: [-0.5792, 44.8378] },
  { name: "Lille", countryCode: "FR", currency: "EUR", coordinates: [3.0573, 50.6292] },
  { name: "Berlin", countryCode: "DE", currency: "EUR", coordinates: [13.405, 52.52] },
  { name: "München", countryCode: "DE", currency: "EUR", coordinates: [11.582, 48.1351] },
  { name: "Hamburg", countryCode: "DE", currency: "EUR", coordinates: [9.9937, 53.5511] },
  { name: "Madrid", countryCode: "ES", currency: "EUR", coordinates: [-3.7038, 40.4168] },
  { name: "Barcelona", countryCode: "ES", currency: "EUR", coordinates: [2.1734, 41.3851] },
  { name: "Lisboa", countryCode: "PT", currency: "EUR", coordinates: [-9.1393, 38.7223] },
  { name: "Roma", countryCode: "IT", currency: "EUR", coordinates: [12.4964, 41.9028] },
  { name: "Milano", countryCode: "IT", currency: "EUR", coordinates: [9.19, 45.4642] },
  { name: "Amsterdam", countryCode: "NL", currency: "EUR", coordinates: [4.9041, 52.3676] },
  { name: "Bruxelles", countryCode: "BE", currency: "EUR", coordinates: [4.3517, 50.8503] },
  { name: "London", countryCode: "GB", currency: "GBP", coordinates: [-0.1276, 51.5072] },
  { name: "Manchester", countryCode: "GB", currency: "GBP", coordinates: [-2.2426, 53.4808] },
  { name: "Dublin", countryCode: "IE", currency: "EUR", coordinates: [-6.2603, 53.3498] },
  { name: "Wien", countryCode: "AT", currency: "EUR", coordinates: [16.3738, 48.2082] },
  { name: "Zürich", countryCode: "CH", currency: "CHF", coordinates: [8.5417, 47.3769] },
  { name: "Warszawa", countryCode: "PL", currency: "PLN", coordinates: [21.0122, 52.2297] },
  { name: "Praha", countryCode: "CZ", currency: "CZK", coordinates: [14.4378, 50.0755] },
  { name: "New York", countryCode: "US", currency: "USD", coordinates: [-74.006, 40.7128] },
  { name: "San Francisco", countryCode: "US", currency: "USD", coordinates: [-122.4194, 37.7749] },
  { name: "Montréal", countryCode: "CA", currency: "CAD", coordinates: [-73.5674, 45.5019] },
  { name: "Toronto", countryCode: "CA", currency: "CAD", coordinates: [-79.3832, 43.6532] },
];

/** Rough value of one euro in each currency, so budgets look plausible everywhere. */
export const PER_EURO: Readonly<Record<string, number>> = {
  EUR: 1,
  GBP: 0.85,
  CHF: 0.95,
  PLN: 4.3,
  CZK: 25,
  USD: 1.1,
  CAD: 1.5,
};

export interface TaskTemplate {
  title: string;
  description: string;
  requirement: string;
  /** Budget range in euros; [0, 0] for volunteer work. */
  budget: [number, number];
  maxPeople?: number;
}

export const TEMPLATES: readonly TaskTemplate[] = [
  {
    title: "Fix a leaking kitchen tap",
    description: "The kitchen tap drips all night. Probably a worn washer or cartridge.",
    requirement: "Bring your own tools and spare washers",
    budget: [30, 80],
  },
  {
    title: "Plomberie : remplacer un joint de douche",
    description:
      "Le joint autour du bac de douche est noirci et fuit un peu. À refaire proprement.",
    requirement: "Expérience en plomberie, silicone fourni",
    budget: [40, 90],
  },
  {
    title: "Help moving boxes to a third-floor flat",
    description: "About 25 boxes and a small sofa, no lift. Van already booked.",
    requirement: "Able to carry heavy loads up stairs",
    budget: [50, 120],
    maxPeople: 3,
  },
  {
    title: "Walk my dog twice a day for a week",
    description: "Friendly labrador, 30 minutes morning and evening while I travel.",
    requirement: "Experience with large dogs",
    budget: [60, 140],
  },
  {
    title: "Assemble an IKEA wardrobe",
    description: "PAX wardrobe with two sliding doors, still in its boxes.",
    requirement: "Own drill and patience",
    budget: [40, 100],
  },
  {
    title: "Cours de maths pour un élève de 3e",
    description: "Deux séances par semaine pour préparer le brevet, algèbre et géométrie.",
    requirement: "Pédagogue, niveau licence minimum",
    budget: [20, 35],
  },
  {
    title: "English conversation practice",
    description: "One hour a week of relaxed conversation over coffee to build confidence.",
    requirement: "Native or fluent English speaker",
    budget: [15, 30],
  },
  {
    title: "Paint a small bedroom",
    description: "Walls and ceiling, about 12 m². Paint and rollers are already bought.",
    requirement: "Clean, careful work; protect the floor",
    budget: [150, 300],
    maxPeople: 2,
  },
  {
    title: "Garden tidy-up before winter",
    description: "Cut back hedges, rake leaves and take green waste to the recycling centre.",
    requirement: "Own gloves; a car is a plus",
    budget: [60, 150],
    maxPeople: 2,
  },
  {
    title: "Café du quartier : aide pour l'inventaire",
    description: "Compter les stocks du café un dimanche matin, environ trois heures.",
    requirement: "Rigueur et ponctualité",
    budget: [30, 60],
  },
  {
    title: "Set up a home Wi-Fi mesh network",
    description: "Three mesh units to configure so the whole flat has signal, plus a printer.",
    requirement: "Comfortable with routers and network settings",
    budget: [40, 90],
  },
  {
    title: "Photograph products for an online shop",
    description: "About 40 handmade ceramics on a white background, edited and ready to upload.",
    requirement: "Own camera and lighting",
    budget: [120, 280],
  },
  {
    title: "Volunteer at the community food bank",
    description: "Sort donations and pack parcels on Saturday morning.",
    requirement: "Friendly, able to stand for three hours",
    budget: [0, 0],
    maxPeople: 8,
  },
  {
    title: "Read to residents of a care home",
    description: "An hour on Wednesday afternoons reading the newspaper and chatting.",
    requirement: "Patience and a clear voice",
    budget: [0, 0],
    maxPeople: 4,
  },
  {
    title: "Beach clean-up morning",
    description: "Join a neighbourhood group picking up litter; bags and gloves provided.",
    requirement: "None, just come along",
    budget: [0, 0],
    maxPeople: 30,
  },
  {
    title: "Repair a bicycle's gears and brakes",
    description: "City bike: gears skip and the rear brake is weak. Parts can be bought on site.",
    requirement: "Bike mechanic experience",
    budget: [25, 60],
  },
  {
    title: "Translate a short website from German to English",
    description: "Six pages of a small bakery's website, about 1,800 words.",
    requirement: "Fluent in German and English",
    budget: [90, 200],
  },
  {
    title: "Babysitting on Friday evening",
    description: "Two children aged 5 and 8, from 19:00 to 23:30. Dinner is prepared.",
    requirement: "References from other families",
    budget: [40, 70],
  },
  {
    title: "Deep clean a flat after moving out",
    description: "Two-room flat, kitchen and bathroom included, to get the deposit back.",
    requirement: "Own cleaning products",
    budget: [90, 180],
    maxPeople: 2,
  },
  {
    title: "Mount a TV and hide the cables",
    description: "55-inch TV on a plasterboard wall, bracket supplied; cables in a trunking.",
    requirement: "Own drill and stud finder",
    budget: [50, 110],
  },
];

export const NEIGHBOURS: readonly { firstName: string; lastName: string }[] = [
  { firstName: "Camille", lastName: "Dubois" },
  { firstName: "Lukas", lastName: "Schneider" },
  { firstName: "Lucía", lastName: "García" },
  { firstName: "Giulia", lastName: "Rossi" },
  { firstName: "Oliver", lastName: "Smith" },
  { firstName: "Zofia", lastName: "Nowak" },
  { firstName: "Maya", lastName: "Johnson" },
];
