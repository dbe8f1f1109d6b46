/**
 * Translates between the two ways video protocols name a frame: OpenAI's `size` (`1280x720`)
 * and Veo's `resolution` + `aspectRatio` (`720p`, `16:9`). Only exact, well-known pairs; anything
 * else is left to the caller to refuse, never guessed.
 */
const heightsByResolution: Record<string, number> = { '480p': 480, '720p': 720, '1080p': 1080, '1440p': 1440, '2160p': 2160, '4k': 2160 };
const ratios: Record<string, [number, number]> = { '16:9': [16, 9], '9:16': [9, 16], '1:1': [1, 1], '4:3': [4, 3], '3:4': [3, 4] };

/** `720p` + `16:9` → `1280x720`; undefined when either is unknown. */
export function sizeFromResolution(resolution: string, aspectRatio: string): string | undefined {
  const height = heightsByResolution[resolution.toLowerCase()];
  const ratio = ratios[aspectRatio];
  if (!height || !ratio) return undefined;
  const [across, down] = ratio;
  // `720p` names the short side, whichever way the frame is turned.
  const [width, tall] = across >= down ? [Math.round((height * across) / down), height] : [height, Math.round((height * down) / across)];
  return `${width}x${tall}`;
}

/** `1280x720` → `{resolution: '720p', aspectRatio: '16:9'}`; undefined when it is not a known pair. */
export function resolutionFromSize(size: string): { resolution: string; aspectRatio: string } | undefined {
  const match = /^(\d+)x(\d+)$/.exec(size);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  for (const [aspectRatio, [across, down]] of Object.entries(ratios)) {
    if (width * down !== height * across) continue;
    const short = Math.min(width, height);
    const resolution = Object.entries(heightsByResolution).find(([, value]) => value === short)?.[0];
    if (resolution) return { resolution, aspectRatio };
  }
  return undefined;
}
