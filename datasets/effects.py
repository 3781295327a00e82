"""Photometric effects of cheap cameras and real rooms, applied to a whole BGR uint8 frame.

Each effect takes ``(rng, image)`` and returns a new image; ``camera_pipeline`` applies a random
selection in the order light reaches a sensor: lighting, glare, white balance, blur, noise,
washed-out webcam tone, JPEG.
"""
from __future__ import annotations

import cv2
import numpy as np

from .textures import fine_noise, gaussian, smooth_noise


def lighting_gradient(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Uneven light: a linear ramp times a soft spot."""
    h, w = img.shape[:2]
    angle = rng.uniform(0, 2 * np.pi)
    x = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    y = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    ramp = 1 + rng.uniform(0, 0.35) * (x * np.cos(angle) + y * np.sin(angle))
    spot = 1 + rng.uniform(-0.15, 0.25) * smooth_noise(rng, h, w, 3)
    gain = rng.uniform(0.55, 1.25)
    return np.clip(img.astype(np.float32) * (ramp * spot * gain)[..., None], 0, 255).astype(np.uint8)


def colour_temperature(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """White balance off: warm (tungsten) or cool (daylight, screens) cast."""
    t = rng.uniform(-1, 1)
    gains = np.array([1 - 0.18 * t, 1 + rng.uniform(-0.05, 0.05), 1 + 0.18 * t], np.float32)
    return np.clip(img.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def glare(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A specular highlight: a soft white ellipse added on top (a lamp reflected on glossy cards)."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    axes = (int(rng.uniform(0.03, 0.25) * w), int(rng.uniform(0.02, 0.15) * h))
    cv2.ellipse(mask, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, min(axes) * rng.uniform(0.3, 0.8)))
    strength = rng.uniform(60, 200)
    return np.clip(img.astype(np.float32) + (mask * strength)[..., None], 0, 255).astype(np.uint8)


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
    colour = gaussian(rng, (h, w, 3), sigma * 0.6)
    luma = fine_noise(rng, h, w, sigma)
    return np.clip(img.astype(np.float32) + colour + luma[..., None], 0, 255).astype(np.uint8)


def webcam_tone(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """The washed-out look of laptop webcams: lifted blacks, lower contrast and saturation, gamma."""
    f = img.astype(np.float32) / 255.0
    grey = f.mean(axis=2, keepdims=True)
    f = grey + (f - grey) * rng.uniform(0.45, 1.0)
    lift = rng.uniform(0.0, 0.25)
    f = lift + f * (1 - lift) * rng.uniform(0.85, 1.1)
    f = np.power(np.clip(f, 0, 1), rng.uniform(0.7, 1.2))
    return np.clip(f * 255, 0, 255).astype(np.uint8)


def saturation_shift(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Boost or mute colour and nudge hue slightly (different printing, different cameras)."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int16)
    hsv[..., 0] = (hsv[..., 0] + int(rng.integers(-4, 5))) % 180
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.7, 1.2), 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


def jpeg(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Compress and decompress at a random JPEG quality."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


def camera_pipeline(rng: np.random.Generator, img: np.ndarray, webcam: bool) -> np.ndarray:
    """Apply a random chain of effects; ``webcam`` makes the washed-out webcam tone likely."""
    if rng.random() < 0.8:
        img = lighting_gradient(rng, img)
    if rng.random() < 0.3:
        img = glare(rng, img)
    if rng.random() < 0.6:
        img = colour_temperature(rng, img)
    if rng.random() < 0.4:
        img = saturation_shift(rng, img)
    blur = rng.random()
    if blur < 0.3:
        img = defocus_blur(rng, img)
    elif blur < 0.45:
        img = motion_blur(rng, img)
    if rng.random() < (0.75 if webcam else 0.3):
        img = webcam_tone(rng, img)
    if rng.random() < 0.7:
        img = sensor_noise(rng, img)
    if rng.random() < 0.6:
        img = jpeg(rng, img)
    return img
