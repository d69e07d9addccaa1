"""The GPU inside transformers: the checkpoint `qgpu build-gpu` writes, loaded by transformers' Qwen3.5,
runs suite launches from their fed tokens. Greedy: `generate` with transformers' own cache must write the
interpreter's stream token for token. Teacher-forced: the fed tokens and the whole stream in one forward
pass (the chunked delta rule) must predict every record."""
import json
import pathlib
import time

import torch

import oracle


def extra(p):
    p.add_argument("--mode", choices=["greedy", "teacher"], required=True)
    p.add_argument("--dtype", choices=["f32", "bf16"], default="f32", help="the checkpoint's weights")
    p.add_argument("--kernels", help="comma-separated suite kernels (default: all)")
    p.add_argument("--checkpoint", required=True, help="the build-gpu checkpoint (written if missing or older "
                                                       "than --qgpu)")


def greedy(model, fed, records):
    """The tokens transformers' generate writes after `fed`, up to the stream's length."""
    end = records[-1]
    with torch.no_grad():
        out = model.generate(torch.tensor([fed]), max_new_tokens=len(records), do_sample=False, eos_token_id=end,
                             pad_token_id=end, use_cache=True)
    return out[0, len(fed):].tolist()


def teacher_forced(model, fed, records):
    """The argmax after each of the last fed token and every record but the last, in one forward pass."""
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([fed + records]), use_cache=False,
                       logits_to_keep=len(records) + 1).logits[0]
    return logits[:-1].argmax(dim=-1).tolist()


def first_difference(written, records):
    for i, (a, b) in enumerate(zip(written, records)):
        if a != b:
            return i
    return -1 if len(written) == len(records) else min(len(written), len(records))


def main():
    args = oracle.arguments(__doc__, extra)
    work = oracle.workdir(args)
    verdict = oracle.Verdict()
    ckpt = oracle.gpu_checkpoint(args.qgpu, pathlib.Path(args.checkpoint), args.dtype)
    kernels = ["--kernels", args.kernels] if args.kernels else []
    oracle.run(args.driver, "launches", "--out", work / "launches.json", *kernels)
    launches = json.loads((work / "launches.json").read_text())

    start = time.monotonic()
    model, cls = oracle.load_hf(ckpt)
    print(f"transformers loaded {ckpt.name} as {cls}, computing in {model.dtype}, in {time.monotonic() - start:.1f} s")
    run = greedy if args.mode == "greedy" else teacher_forced
    exact, tokens, start = 0, 0, time.monotonic()
    for name, launch in launches.items():
        t0 = time.monotonic()
        written = run(model, launch["fed"], launch["records"])
        at = first_difference(written, launch["records"])
        exact += at < 0
        tokens += len(launch["fed"]) + len(launch["records"])
        detail = "" if at < 0 else f": first differs at record {at}: {written[at:at + 4]} vs {launch['records'][at:at + 4]}"
        verdict.check(at < 0, f"{name}: {len(launch['records'])} records {args.mode} in transformers "
                              f"({time.monotonic() - t0:.1f} s){detail}")
    print(f"{args.mode}, {args.dtype} weights: {exact} of {len(launches)} launches exact in transformers, "
          f"{tokens} tokens in {time.monotonic() - start:.0f} s")
    verdict.finish()


if __name__ == "__main__":
    main()
