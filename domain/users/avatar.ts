/** The generated default avatar: a coloured disc with the user's initials, as SVG. */

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function firstLetter(name: string | null | undefined): string {
  const letter = Array.from(name?.trim() ?? "")[0] ?? "";
  return letter.toLocaleUpperCase();
}

/** Initials of a name: first letters of first and last name ("Ada Lovelace" → "AL"), or "?". */
export function initials(firstName: string, lastName: string | null): string {
  return (firstLetter(firstName) + firstLetter(lastName)) || "?";
}

/** A hue from 0 to 359 that is stable for a user id (FNV-1a over its characters). */
export function hueOf(userId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    hash = Math.imul(hash ^ userId.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash % 360;
}

/** A 128×128 SVG avatar with the initials on a background coloured from the user id. */
export function avatarSvg(userId: string, firstName: string, lastName: string | null): string {
  const text = escapeXml(initials(firstName, lastName));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128"` +
    ` role="img" aria-label="${text}">` +
    `<circle cx="64" cy="64" r="64" fill="hsl(${hueOf(userId)} 55% 45%)"/>` +
    `<text x="64" y="64" dy=".35em" text-anchor="middle" fill="#fff"` +
    ` font-family="system-ui, sans-serif" font-size="52" font-weight="600">${text}</text>` +
    `</svg>`;
}
