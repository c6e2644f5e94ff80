"""Realistic training-log noise, in the formats public logs use, with real errors buried in it.

Formats (each line shape copied from the format the named tool prints; values random):
- glog lines of JAX/XLA/libtpu (``I1130 12:00:01.123456  1234 file.cc:123] ...``), the format of
  absl/glog: https://github.com/google/glog#log-line-prefix-format
- PyTorch/NCCL INFO lines (``host:pid:tid [rank] NCCL INFO ...``), as NCCL_DEBUG=INFO prints them
  (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug)
- training-loop progress (step, loss, learning rate, throughput), checkpoint saves, retries that
  recovered, Python warnings, tqdm bars, kubelet-style event lines.
No line of noise is an error a symptom page describes: noise words are drawn from a fixed,
benign vocabulary.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

FILES = ("train.py", "trainer.py", "checkpointing.py", "data_loader.py", "pjit.py", "tpu_client.cc", "compiler.cc")


def noise_lines(seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    step = 0
    host = f"gke-tpu-{rng.randrange(16**6):06x}"
    while True:
        step += 1
        pid = rng.randrange(1000, 99999)
        ts = f"{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d} {rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(10**6):06d}"
        kind = rng.random()
        if kind < 0.35:
            yield f"I{ts} {pid} {rng.choice(FILES)}:{rng.randrange(1, 900)}] step {step}: loss={rng.random() * 4:.4f} lr={rng.random() / 1000:.2e} tokens/s={rng.randrange(10**5, 10**6)} mfu={rng.random():.3f}"
        elif kind < 0.5:
            yield f"{host}:{pid}:{pid + 7} [{rng.randrange(8)}] NCCL INFO Channel {rng.randrange(32):02d}/0 : {rng.randrange(8)}[{rng.randrange(8)}] -> {rng.randrange(8)}[{rng.randrange(8)}] via P2P/IPC"
        elif kind < 0.6:
            yield f"{step}it [{rng.randrange(60):02d}:{rng.randrange(60):02d}, {rng.random() * 10:.2f}it/s]"
        elif kind < 0.68:
            yield f"I{ts} {pid} checkpointing.py:{rng.randrange(400)}] Saved checkpoint for step {step} to gs://bucket-{rng.randrange(999)}/run/checkpoints/{step}"
        elif kind < 0.74:
            yield f"W{ts} {pid} {rng.choice(FILES)}:{rng.randrange(900)}] Retrying request to storage (attempt {rng.randrange(1, 4)} of 5); it succeeded on the next try"
        elif kind < 0.8:
            yield f"/usr/local/lib/python3.10/site-packages/jax/_src/xla_bridge.py:{rng.randrange(900)}: UserWarning: the option is deprecated and will be removed in a future release"
        elif kind < 0.9:
            yield f"{step:>7} | train | epoch {step // 1000:3d} | batch {step % 1000:4d} | throughput {rng.random() * 500:.1f} samples/s | grad_norm {rng.random() * 3:.3f}"
        else:
            yield f"Normal  Scheduled  {rng.randrange(60)}s  default-scheduler  Successfully assigned default/worker-{rng.randrange(64)} to {host}"


def bury(error: str, size_bytes: int, depth: float, seed: int) -> Iterator[str]:
    """Noise lines totalling about ``size_bytes``, with ``error`` (one or more lines) inserted
    at ``depth`` (0..1) of the way through."""
    target = int(size_bytes * depth)
    written = 0
    placed = False
    for line in noise_lines(seed):
        if not placed and written >= target:
            yield from error.splitlines()
            placed = True
        if written >= size_bytes:
            break
        written += len(line) + 1
        yield line
    if not placed:
        yield from error.splitlines()
