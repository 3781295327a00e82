"""Table vision: camera sources, the card detector runtime, table zones, frames to referee events."""
