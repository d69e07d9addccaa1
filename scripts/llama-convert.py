#!/usr/bin/env python3
"""Converts a Qwen3.5 checkpoint to GGUF with llama.cpp's own converter, for `qgpu bench-host` only.

Usage: llama-convert.py LLAMA_CPP_DIR CHECKPOINT_DIR OUT.gguf bf16|q8_0

The random-weight benchmark host has a byte-level tokenizer that llama.cpp's converter does not know by
its hash; its pre-tokenizer is declared Qwen3.5's, which changes no weight and no speed.
"""
import sys

llama, checkpoint, out, outtype = sys.argv[1:5]
sys.path.insert(0, llama)
sys.path.insert(1, llama + "/gguf-py")
from conversion import base  # noqa: E402

base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen35"
import convert_hf_to_gguf  # noqa: E402

sys.argv = ["convert_hf_to_gguf.py", checkpoint, "--outfile", out, "--outtype", outtype, "--no-mtp"]
convert_hf_to_gguf.main()
