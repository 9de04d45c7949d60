import jpeg from "jpeg-js";
import { describe, expect, it } from "vitest";
import { exifRotation, imageSize, RotationError, rotateImage } from "../../src/documents/rotation";
import { decodeTestPng, encodeTestPng, pixelAt } from "../fixtures/images";

// Rotating image documents (src/documents/rotation.ts, docs/api.md §Documents "Rotation"): PNGs made and read by the
// test's own codec (test/fixtures/images.ts), JPEGs made and read with jpeg-js (lossy: colours compared roughly).

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];

describe("rotateImage, PNG", () => {
  it("a 2×1 image turned 90° clockwise is 1×2, its left pixel on top", async () => {
    const png = await encodeTestPng({ width: 2, height: 1, channels: 3, data: new Uint8Array([...RED, ...BLUE]) });
    const turned = await decodeTestPng(await rotateImage(png, "image/png", 90));
    expect([turned.width, turned.height]).toEqual([1, 2]);
    expect(pixelAt(turned, 0, 0)).toEqual(RED);
    expect(pixelAt(turned, 0, 1)).toEqual(BLUE);
    const back = await decodeTestPng(await rotateImage(png, "image/png", 270));
    expect([back.width, back.height]).toEqual([1, 2]);
    expect([pixelAt(back, 0, 0), pixelAt(back, 0, 1)]).toEqual([BLUE, RED]);
    const half = await decodeTestPng(await rotateImage(png, "image/png", 180));
    expect([half.width, half.height]).toEqual([2, 1]);
    expect([pixelAt(half, 0, 0), pixelAt(half, 1, 0)]).toEqual([BLUE, RED]);
  });

  it("every pixel of a 3×2 RGBA image lands where a clockwise turn puts it", async () => {
    // A B C      90°: D A    180°: F E D    270°: C F
    // D E F           E B          C B A          B E
    //                 F C                         A D
    const colours = [1, 2, 3, 4, 5, 6].map((n) => [n * 40, 255 - n * 30, n * 7, 100 + n]);
    const [A, B, C, D, E, F] = colours;
    const png = await encodeTestPng({ width: 3, height: 2, channels: 4, data: new Uint8Array(colours.flat()) });
    const rows = async (degrees: 90 | 180 | 270) => {
      const image = await decodeTestPng(await rotateImage(png, "image/png", degrees));
      return Array.from({ length: image.height }, (_, y) =>
        Array.from({ length: image.width }, (_, x) => pixelAt(image, x, y)),
      );
    };
    expect(await rows(90)).toEqual([
      [D, A],
      [E, B],
      [F, C],
    ]);
    expect(await rows(180)).toEqual([
      [F, E, D],
      [C, B, A],
    ]);
    expect(await rows(270)).toEqual([
      [C, F],
      [B, E],
      [A, D],
    ]);
  });
});

/** A 16×8 JPEG, left half red and right half blue, with an optional EXIF block. */
function halvesJpeg(exifBuffer?: Uint8Array): Uint8Array {
  const data = new Uint8Array(16 * 8 * 4);
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 16; x++) data.set([...(x < 8 ? RED : BLUE), 255], (y * 16 + x) * 4);
  }
  const image = { width: 16, height: 8, data, exifBuffer } as Parameters<typeof jpeg.encode>[0];
  return new Uint8Array(jpeg.encode(image, 95).data);
}

/** A big-endian TIFF header with one IFD entry: Orientation = `orientation`. */
function exifOrientation(orientation: number): Uint8Array {
  const tiff = new Uint8Array(26);
  const view = new DataView(tiff.buffer);
  tiff.set([0x4d, 0x4d, 0x00, 0x2a]);
  view.setUint32(4, 8);
  view.setUint16(8, 1);
  view.setUint16(10, 0x0112);
  view.setUint16(12, 3);
  view.setUint32(14, 1);
  view.setUint16(18, orientation);
  view.setUint32(22, 0);
  return tiff;
}

const near = (actual: number[], expected: number[]) => actual.every((v, i) => Math.abs(v - (expected[i] ?? 0)) < 40);

describe("rotateImage, JPEG", () => {
  it("turns the pixels and keeps JPEG", async () => {
    const turned = jpeg.decode(await rotateImage(halvesJpeg(), "image/jpeg", 90), { useTArray: true });
    expect([turned.width, turned.height]).toEqual([8, 16]);
    const at = (x: number, y: number) => [...turned.data.subarray((y * 8 + x) * 4, (y * 8 + x) * 4 + 3)];
    expect(near(at(4, 3), RED), String(at(4, 3))).toBe(true);
    expect(near(at(4, 12), BLUE), String(at(4, 12))).toBe(true);
  });

  it("folds the EXIF orientation into the turn and writes no EXIF", async () => {
    // Orientation 6: viewers show the stored pixels turned 90°; a further 90° is 180° of the stored pixels.
    const source = halvesJpeg(exifOrientation(6));
    expect(exifRotation((jpeg.decode(source, { useTArray: true }) as { exifBuffer?: Uint8Array }).exifBuffer)).toBe(90);
    const out = await rotateImage(source, "image/jpeg", 90);
    const turned = jpeg.decode(out, { useTArray: true }) as { width: number; data: Uint8Array; exifBuffer?: unknown };
    expect(turned.exifBuffer).toBeUndefined();
    expect(turned.width).toBe(16);
    const at = (x: number, y: number) => [...turned.data.subarray((y * 16 + x) * 4, (y * 16 + x) * 4 + 3)];
    expect(near(at(3, 4), BLUE), String(at(3, 4))).toBe(true);
    expect(near(at(12, 4), RED), String(at(12, 4))).toBe(true);
  });
});

describe("exifRotation and imageSize", () => {
  it("reads the orientation of a TIFF block, big- or little-endian", () => {
    expect(exifRotation(exifOrientation(6))).toBe(90);
    expect(exifRotation(exifOrientation(3))).toBe(180);
    expect(exifRotation(exifOrientation(8))).toBe(270);
    expect(exifRotation(exifOrientation(1))).toBe(0);
    expect(exifRotation(exifOrientation(5))).toBe(0);
    expect(exifRotation(new Uint8Array([0, ...exifOrientation(6)]))).toBe(90);
    expect(exifRotation(new Uint8Array([1, 2, 3]))).toBe(0);
    expect(exifRotation(undefined)).toBe(0);
  });

  it("reads the size from a PNG's IHDR and a JPEG's SOF without decoding", async () => {
    const png = await encodeTestPng({ width: 3, height: 2, channels: 3, data: new Uint8Array(18) });
    expect(imageSize(png, "image/png")).toEqual({ width: 3, height: 2 });
    expect(imageSize(halvesJpeg(exifOrientation(6)), "image/jpeg")).toEqual({ width: 16, height: 8 });
    expect(imageSize(new TextEncoder().encode("%PDF-1.7"), "image/png")).toBeUndefined();
    expect(imageSize(png, "image/jpeg")).toBeUndefined();
  });

  it("refuses what it cannot rotate: over the pixel limit, not decodable, not PNG or JPEG", async () => {
    const header = await encodeTestPng({ width: 1, height: 1, channels: 3, data: new Uint8Array(3) });
    const huge = header.slice();
    new DataView(huge.buffer).setUint32(16, 4000);
    new DataView(huge.buffer).setUint32(20, 4000);
    await expect(rotateImage(huge, "image/png", 90)).rejects.toThrow(/over 9000000 pixels/);
    await expect(rotateImage(header.subarray(0, 40), "image/png", 90)).rejects.toThrow(RotationError);
    await expect(rotateImage(new Uint8Array([0xff, 0xd8, 1, 2]), "image/jpeg", 90)).rejects.toThrow(RotationError);
    await expect(rotateImage(header, "image/tiff", 90)).rejects.toThrow(/not rotated here/);
  });
});
