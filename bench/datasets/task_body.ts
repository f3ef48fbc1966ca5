/**
 * A valid task create body for the benches; `overrides` replace members (undefined removes one).
 */
export function taskBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    title: "Fix the kitchen sink",
    description: "The tap drips and the drain is slow.",
    budget: 80,
    currency: "EUR",
    location: { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" },
    requirement: "Bring your own tools",
    dueDate: "2030-05-01",
    maxPeople: 2,
    ...overrides,
  };
  for (const [name, value] of Object.entries(body)) if (value === undefined) delete body[name];
  return body;
}
