import type { DecodedPng } from "fast-png";

/**
 * Rotating image documents (`POST /documents/{id}/rotate`, docs/api.md §Documents "Rotation"): the stored PNG or JPEG
 * is decoded (fast-png, jpeg-js: pure JavaScript, no WebAssembly, so they run in workerd as they do in Node), its
 * pixels turned clockwise by 90, 180 or 270 degrees, and encoded again in the same format. TIFF is accepted as a
 * document but not rotated (no codec here); PDFs and spreadsheets are not images.
 *
 * JPEG: the EXIF orientation (tags 3, 6 and 8: turned 180°, 90° and 270°) is folded into the turn and the result is
 * written without EXIF, so what a viewer shows turns by exactly the requested angle; mirrored orientations (2, 4, 5, 7)
 * are taken as upright. Re-encoding is lossy at {@link JPEG_QUALITY}. PNG: 8- and 16-bit samples are kept, palette and
 * sub-byte images become 8-bit RGB(A) or grey, and ancillary chunks (text, ICC profile, `tRNS` of non-palette images)
 * are not carried over.
 *
 * The codecs are imported on the first rotation (`import()`), not with this module: nothing else imports them, so they
 * (and fflate's tables, which fast-png's decoder builds at load) stay out of every isolate's startup
 * (docs/SCALING.md §Worker bundle, startup and cold start).
 */

/** Angles a document turns by, clockwise, degrees (the reference's enum). */
export const ROTATION_DEGREES = [90, 180, 270] as const;
/** A clockwise turn in degrees. */
export type RotationDegrees = (typeof ROTATION_DEGREES)[number];

/** MIME types rotated here. */
export const ROTATABLE_CONTENT_TYPES = ["image/png", "image/jpeg"] as const;

/**
 * Largest image rotated, in pixels (9 megapixels: an A4 page scanned at 300 dpi is 8.7). Decoded RGBA and its turned
 * copy are 4 bytes a pixel each, so this keeps a rotation well within a Worker's 128 MB.
 */
export const MAX_ROTATION_PIXELS = 9_000_000;

/** JPEG quality of a rotated JPEG (jpeg-js scale, 1-100). */
export const JPEG_QUALITY = 90;

/** An image's size in pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * Width and height from the start of a PNG (IHDR) or a JPEG (the first SOFn segment), without decoding; `head` need
 * only hold the file's first bytes (a JPEG's SOF follows its APPn segments, usually within 64 KiB).
 * @returns undefined when the bytes are not of that type or the header is not within `head`.
 */
export function imageSize(head: Uint8Array, contentType: string): ImageSize | undefined {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (contentType === "image/png") {
    const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
    if (head.length < 24 || signature.some((b, i) => head[i] !== b)) return undefined;
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (contentType === "image/jpeg") {
    if (head[0] !== 0xff || head[1] !== 0xd8) return undefined;
    let at = 2;
    while (at + 9 < head.length) {
      if (head[at] !== 0xff) return undefined;
      const marker = head[at + 1] ?? 0;
      if (marker === 0xff) {
        at += 1;
        continue;
      }
      // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC).
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
      }
      at += 2 + view.getUint16(at + 2);
    }
  }
  return undefined;
}

/**
 * The pixels of a `width` × `height` image of `channels` samples a pixel, turned clockwise by `degrees`: the result is
 * `height` × `width` for 90 and 270. Works on any sample array (8- or 16-bit).
 */
export function rotatePixels<T extends Uint8Array | Uint16Array | Uint8ClampedArray>(
  data: T,
  width: number,
  height: number,
  channels: number,
  degrees: RotationDegrees,
): T {
  const out = new (data.constructor as new (n: number) => T)(data.length);
  const outWidth = degrees === 180 ? width : height;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let nx: number;
      let ny: number;
      if (degrees === 90) {
        nx = height - 1 - y;
        ny = x;
      } else if (degrees === 180) {
        nx = width - 1 - x;
        ny = height - 1 - y;
      } else {
        nx = y;
        ny = width - 1 - x;
      }
      const from = (y * width + x) * channels;
      const to = (ny * outWidth + nx) * channels;
      for (let c = 0; c < channels; c++) out[to + c] = data[from + c] as number;
    }
  }
  return out;
}

/** Why an image could not be rotated (the job logs it; the document keeps its file). */
export class RotationError extends Error {}

/** Samples of a decoded PNG as 8- or 16-bit, one sample an element (palette → RGB(A), 1/2/4-bit grey → 8-bit). */
function pngSamples(
  png: DecodedPng,
  convertIndexedToRgb: (png: DecodedPng) => Uint8Array,
): { data: Uint8Array | Uint16Array; channels: number } {
  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    return { data: rgb, channels: rgb.length / (png.width * png.height) };
  }
  if (png.depth >= 8) return { data: png.data as Uint8Array | Uint16Array, channels: png.channels };
  // Sub-byte grey (or grey + nothing else: colour types with alpha or RGB are 8/16-bit only): unpack each row.
  const out = new Uint8Array(png.width * png.height * png.channels);
  const perByte = 8 / png.depth;
  const max = 2 ** png.depth - 1;
  const rowBytes = Math.ceil((png.width * png.channels) / perByte);
  const source = png.data as Uint8Array;
  for (let y = 0; y < png.height; y++) {
    for (let i = 0; i < png.width * png.channels; i++) {
      const byte = source[y * rowBytes + Math.floor(i / perByte)] ?? 0;
      const shift = 8 - png.depth * ((i % perByte) + 1);
      out[y * png.width * png.channels + i] = Math.round((((byte >> shift) & max) * 255) / max);
    }
  }
  return { data: out, channels: png.channels };
}

/** The clockwise turn an EXIF block's orientation asks a viewer for (0 for none, upright or mirrored). */
export function exifRotation(exif: Uint8Array | undefined): 0 | RotationDegrees {
  if (!exif) return 0;
  // jpeg-js hands the APP1 payload after "Exif\0": skip padding up to the TIFF header ("II" or "MM").
  let start = 0;
  while (start < 4 && exif[start] === 0) start++;
  if (exif.length < start + 8) return 0;
  const view = new DataView(exif.buffer, exif.byteOffset + start, exif.byteLength - start);
  const little = exif[start] === 0x49 && exif[start + 1] === 0x49;
  if (!little && !(exif[start] === 0x4d && exif[start + 1] === 0x4d)) return 0;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > view.byteLength) return 0;
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const at = ifd + 2 + i * 12;
    if (at + 12 > view.byteLength) return 0;
    if (view.getUint16(at, little) !== 0x0112) continue;
    const orientation = view.getUint16(at + 8, little);
    return orientation === 3 ? 180 : orientation === 6 ? 90 : orientation === 8 ? 270 : 0;
  }
  return 0;
}

/**
 * The image turned clockwise by `degrees`, in its own format (see the module comment).
 * @throws RotationError (the promise rejects) for another type, bytes that do not decode, or an image over
 *   {@link MAX_ROTATION_PIXELS}.
 */
export async function rotateImage(
  bytes: Uint8Array,
  contentType: string,
  degrees: RotationDegrees,
): Promise<Uint8Array> {
  const size = imageSize(bytes.subarray(0, 256 * 1024), contentType);
  if (size && size.width * size.height > MAX_ROTATION_PIXELS) {
    throw new RotationError(`image of ${size.width}x${size.height} pixels is over ${MAX_ROTATION_PIXELS} pixels`);
  }
  try {
    if (contentType === "image/png") {
      const { convertIndexedToRgb, decode: decodePng, encode: encodePng } = await import("fast-png");
      const png = decodePng(bytes);
      const { data, channels } = pngSamples(png, convertIndexedToRgb);
      const turned = rotatePixels(data, png.width, png.height, channels, degrees);
      const [width, height] = degrees === 180 ? [png.width, png.height] : [png.height, png.width];
      return encodePng({ width, height, data: turned, channels, depth: data instanceof Uint16Array ? 16 : 8 });
    }
    if (contentType === "image/jpeg") {
      const { default: jpeg } = await import("jpeg-js");
      const image = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: MAX_ROTATION_PIXELS / 1_000_000,
        maxMemoryUsageInMB: 96,
      }) as { width: number; height: number; data: Uint8Array; exifBuffer?: Uint8Array };
      const turn = ((exifRotation(image.exifBuffer) + degrees) % 360) as 0 | RotationDegrees;
      const turned = turn === 0 ? image.data : rotatePixels(image.data, image.width, image.height, 4, turn);
      const [width, height] = turn % 180 === 0 ? [image.width, image.height] : [image.height, image.width];
      return new Uint8Array(jpeg.encode({ width, height, data: turned }, JPEG_QUALITY).data);
    }
  } catch (err) {
    throw new RotationError(`the ${contentType} image could not be rotated: ${String(err)}`);
  }
  throw new RotationError(`${contentType} is not rotated here`);
}
