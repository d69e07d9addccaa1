"""Writes `qgpu build-gpu`'s checkpoint for the GPU conformance tests, unless it is newer than qgpu."""
import pathlib

import oracle


def extra(p):
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--dtype", choices=["f32", "bf16"], default="f32")


if __name__ == "__main__":
    args = oracle.arguments(__doc__, extra)
    oracle.gpu_checkpoint(args.qgpu, pathlib.Path(args.checkpoint), args.dtype)
