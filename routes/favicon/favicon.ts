/**
 * GET /favicon.ico: the service's icon (the dashboard's accent colour with a check mark), drawn
 * once into a 32×32 ICO, so a browser's automatic request is answered instead of a 404.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../router/env.ts";

const SIZE = 32;
const ACCENT = [0x3b, 0x4f, 0xd8]; // --accent of the dashboard's stylesheet
const CORNER = 7;
const CHECK: [number, number][] = [[9, 16.5], [14, 21.5], [23.5, 11]];
const STROKE = 2.4;

function distanceToSegment(x: number, y: number, [ax, ay]: number[], [bx, by]: number[]) {
  const dx = bx - ax, dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - ax - t * dx, y - ay - t * dy);
}

/** RGBA of the pixel whose centre is (x, y), y downwards; alpha 0 outside the rounded square. */
function pixel(x: number, y: number): [number, number, number, number] {
  const cx = Math.max(CORNER, Math.min(SIZE - CORNER, x));
  const cy = Math.max(CORNER, Math.min(SIZE - CORNER, y));
  if (Math.hypot(x - cx, y - cy) > CORNER) return [0, 0, 0, 0];
  const onCheck = distanceToSegment(x, y, CHECK[0], CHECK[1]) <= STROKE ||
    distanceToSegment(x, y, CHECK[1], CHECK[2]) <= STROKE;
  return onCheck ? [255, 255, 255, 255] : [...ACCENT, 255] as [number, number, number, number];
}

/** One 32-bit BMP image in an ICO container: header, directory entry, DIB, and its AND mask. */
function drawIcon(): Uint8Array<ArrayBuffer> {
  const maskRow = Math.ceil(SIZE / 32) * 4;
  const pixels = SIZE * SIZE * 4;
  const image = 40 + pixels + maskRow * SIZE;
  const bytes = new Uint8Array(6 + 16 + image);
  const view = new DataView(bytes.buffer);
  view.setUint16(2, 1, true); // type: icon
  view.setUint16(4, 1, true); // one image
  bytes[6] = SIZE;
  bytes[7] = SIZE;
  view.setUint16(6 + 4, 1, true); // planes
  view.setUint16(6 + 6, 32, true); // bits per pixel
  view.setUint32(6 + 8, image, true);
  view.setUint32(6 + 12, 22, true);
  const dib = 22;
  view.setUint32(dib, 40, true);
  view.setInt32(dib + 4, SIZE, true);
  view.setInt32(dib + 8, SIZE * 2, true); // the colour rows and the mask rows
  view.setUint16(dib + 12, 1, true);
  view.setUint16(dib + 14, 32, true);
  view.setUint32(dib + 20, pixels + maskRow * SIZE, true);
  // Rows bottom-up, BGRA; the AND mask stays zero (the alpha channel decides).
  for (let row = 0; row < SIZE; row++) {
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x + 0.5, SIZE - row - 0.5);
      bytes.set([b, g, r, a], dib + 40 + (row * SIZE + x) * 4);
    }
  }
  return bytes;
}

const route = createRoute({
  method: "get",
  path: "/favicon.ico",
  tags: ["Service"],
  summary: "The service's icon, for browsers",
  description: "Free of the rate budget, as /health is.",
  responses: {
    200: {
      description: "A 32×32 icon",
      content: { "image/x-icon": { schema: z.string().openapi({ format: "binary" }) } },
    },
  },
});

export function registerFavicon(app: OpenAPIHono<AppEnv>) {
  let icon: Uint8Array<ArrayBuffer> | null = null;
  app.openapi(route, (c) => {
    c.header("Content-Type", "image/x-icon");
    c.header("Cache-Control", "public, max-age=86400");
    return c.body(icon ??= drawIcon(), 200);
  });
}
