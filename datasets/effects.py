"""Photometric effects of cheap cameras and real rooms, applied to a whole BGR frame.

Light and colour effects work on float32 frames in place (``lighting_gradient``, ``glare``,
``colour_temperature``, ``desaturate``); sensor effects work on uint8 frames (``hue_jitter``, ``webcam_tone``,
``defocus_blur``, ``motion_blur``, ``sensor_noise``, ``jpeg``, ``grey_camera``). ``camera_pipeline`` applies a
random selection in the order light reaches a sensor, converting to uint8 once.
"""
from __future__ import annotations

import cv2
import numpy as np

from .textures import gaussian, smooth_noise

LOW_RES = 64  # slowly varying fields are computed at this size and scaled up


def _low_res_field(field: np.ndarray, w: int, h: int) -> np.ndarray:
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)


def lighting_gradient(rng: np.random.Generator, f: np.ndarray) -> None:
    """Uneven light: a linear ramp times a soft spot, times an overall exposure gain."""
    h, w = f.shape[:2]
    angle = rng.uniform(0, 2 * np.pi)
    x = np.linspace(-1, 1, LOW_RES, dtype=np.float32)[None, :]
    y = np.linspace(-1, 1, LOW_RES, dtype=np.float32)[:, None]
    ramp = 1 + rng.uniform(0, 0.35) * (x * np.cos(angle) + y * np.sin(angle))
    spot = 1 + rng.uniform(-0.15, 0.25) * smooth_noise(rng, LOW_RES, LOW_RES, 3)
    gain = _low_res_field((ramp * spot * rng.uniform(0.55, 1.25)).astype(np.float32), w, h)
    f *= gain[..., None]


def glare(rng: np.random.Generator, f: np.ndarray) -> None:
    """A specular highlight: a soft white ellipse added on top (a lamp reflected on glossy cards)."""
    h, w = f.shape[:2]
    scale = LOW_RES * 2 / w
    mask = np.zeros((LOW_RES * 2, LOW_RES * 2), np.float32)
    centre = (rng.uniform(0, w), rng.uniform(0, h))
    axes = (rng.uniform(0.03, 0.25) * w, rng.uniform(0.02, 0.15) * h)
    cv2.ellipse(mask, (int(centre[0] * scale), int(centre[1] * scale)),
                (max(1, int(axes[0] * scale)), max(1, int(axes[1] * scale))), rng.uniform(0, 180), 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, min(axes) * scale * rng.uniform(0.3, 0.8)))
    f += (_low_res_field(mask, w, h) * rng.uniform(60, 200))[..., None]


def colour_temperature(rng: np.random.Generator, f: np.ndarray) -> None:
    """White balance off: warm (tungsten) or cool (daylight, screens) cast, and a green or magenta
    tint (light bounced off coloured walls, cheap sensors)."""
    t = rng.uniform(-1, 1)
    tint = rng.uniform(-0.06, 0.14)
    f *= np.array([1 - 0.18 * t - tint / 2, 1 + tint, 1 + 0.18 * t - tint / 2], np.float32)


def desaturate(rng: np.random.Generator, f: np.ndarray, low: float = 0.45, high: float = 1.2) -> None:
    """Mix towards grey (factor < 1) or away from it (> 1): muted webcams, vivid phones."""
    grey = cv2.cvtColor(cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    k = float(rng.uniform(low, high))
    cv2.addWeighted(f, k, grey, 1.0 - k, 0.0, dst=f)


def webcam_tone(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """The washed-out tone curve of laptop webcams: lifted blacks, lower contrast, gamma (a LUT)."""
    lift = rng.uniform(0.0, 0.25)
    x = np.linspace(0, 1, 256, dtype=np.float32)
    curve = np.power(np.clip(lift + x * (1 - lift) * rng.uniform(0.85, 1.1), 0, 1), rng.uniform(0.7, 1.2))
    return cv2.LUT(img, np.clip(curve * 255 + 0.5, 0, 255).astype(np.uint8))


def hue_jitter(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Nudge every hue a little (other printings, other sensors); small enough to keep the UNO colours apart."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    shift = int(rng.integers(-4, 5))
    hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + shift) % 180).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def defocus_blur(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Out-of-focus blur."""
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.6, 2.2))


def motion_blur(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A straight motion streak of a few pixels."""
    length = int(rng.integers(3, 12))
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length
    m = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
    kernel = cv2.warpAffine(kernel, m, (length, length))
    kernel /= max(kernel.sum(), 1e-6)
    return cv2.filter2D(img, -1, kernel)


def sensor_noise(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Shot/read noise: Gaussian, partly colour, partly luminance."""
    h, w = img.shape[:2]
    sigma = rng.uniform(2, 12)
    noise = gaussian(rng, (h, w, 3), sigma * 0.6)
    noise += gaussian(rng, (h, w, 1), sigma)
    return cv2.add(img, noise, dtype=cv2.CV_8U)


def jpeg(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Compress and decompress at a random JPEG quality."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


def camera_pipeline(rng: np.random.Generator, img: np.ndarray, webcam: bool) -> np.ndarray:
    """Apply a random chain of effects; ``webcam`` makes the washed-out webcam look likely."""
    f = img.astype(np.float32)
    if rng.random() < 0.8:
        lighting_gradient(rng, f)
    if rng.random() < 0.3:
        glare(rng, f)
    if rng.random() < 0.6:
        colour_temperature(rng, f)
    washed = rng.random() < (0.75 if webcam else 0.3)
    if washed or rng.random() < 0.3:
        desaturate(rng, f, 0.45 if washed else 0.7, 1.0 if washed else 1.25)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        out = hue_jitter(rng, out)
    blur = rng.random()
    if blur < 0.3:
        out = defocus_blur(rng, out)
    elif blur < 0.45:
        out = motion_blur(rng, out)
    if washed:
        out = webcam_tone(rng, out)
    if rng.random() < 0.7:
        out = sensor_noise(rng, out)
    if rng.random() < 0.6:
        out = jpeg(rng, out)
    return out


def grey_camera(img: np.ndarray) -> np.ndarray:
    """The frame as a camera without colour sends it (a monochrome or night-vision webcam, a grey photo): its
    luminance in all three channels."""
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
