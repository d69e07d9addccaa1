"""The GPU inside transformers: the checkpoint `qgpu build-gpu` writes, loaded by transformers' Qwen3.5,
runs suite launches from their fed tokens. Greedy: `generate` with transformers' own cache must write the
interpreter's stream token for token; with --batch, launches of similar length decode together, left-padded
under an attention mask as transformers batches prompts. Teacher-forced: the fed tokens and the whole stream in one forward
pass (the chunked delta rule) must predict every record. --budget teaches the driver's teacher sample (the
launches that cover every feature of the machine the suite exercises, within that many tokens); --max-tokens
leaves the longest launches to a run without it, and names them."""
import json
import pathlib
import time

import torch

import oracle


def extra(p):
    p.add_argument("--mode", choices=["greedy", "teacher"], required=True)
    p.add_argument("--dtype", choices=["f32", "bf16"], default="f32", help="the checkpoint's weights")
    p.add_argument("--kernels", help="comma-separated suite kernels (default: all)")
    p.add_argument("--max-tokens", type=int, help="only launches of at most this many tokens, fed and written "
                                                  "(default: every launch)")
    p.add_argument("--budget", type=int, help="only the teacher sample, which must fit in this many tokens")
    p.add_argument("--batch", type=int, default=1, help="greedy: launches decoded together (default 1)")
    p.add_argument("--checkpoint", required=True, help="the build-gpu checkpoint (written if missing or older "
                                                       "than --qgpu)")


def greedy(model, launches):
    """The tokens transformers' generate writes after each launch's fed tokens, up to its stream's length,
    the launches decoded as one left-padded batch."""
    end = launches[0]["records"][-1]
    width = max(len(launch["fed"]) for launch in launches)
    ids = [[end] * (width - len(launch["fed"])) + launch["fed"] for launch in launches]
    mask = [[0] * (width - len(launch["fed"])) + [1] * len(launch["fed"]) for launch in launches]
    with torch.no_grad():
        out = model.generate(torch.tensor(ids), attention_mask=torch.tensor(mask), do_sample=False,
                             max_new_tokens=max(len(launch["records"]) for launch in launches),
                             eos_token_id=end, pad_token_id=end, use_cache=True)
    return [out[i, width:width + len(launch["records"])].tolist() for i, launch in enumerate(launches)]


def batches(launches, size):
    """Launches sorted by stream length, in batches of up to `size` whose longest stream is at most twice
    the shortest (a batch decodes as many steps as its longest)."""
    ordered = sorted(launches.items(), key=lambda item: len(item[1]["records"]))
    group = []
    for item in ordered:
        if group and (len(group) == size or len(item[1]["records"]) > 2 * len(group[0][1]["records"])):
            yield group
            group = []
        group.append(item)
    if group:
        yield group


def teacher_forced(model, fed, records):
    """The argmax after each of the last fed token and every record but the last, in one forward pass."""
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([fed + records]), use_cache=False,
                       logits_to_keep=len(records) + 1).logits[0]
    return logits[:-1].argmax(dim=-1).tolist()


def within_budget(launches, max_tokens):
    """The launches of at most `max_tokens` tokens (all when None); prints the names of the others."""
    if max_tokens is None:
        return launches
    size = {name: len(launch["fed"]) + len(launch["records"]) for name, launch in launches.items()}
    longer = sorted((name for name in launches if size[name] > max_tokens), key=size.get)
    if longer:
        print(f"{len(longer)} launches longer than {max_tokens} tokens are left to a run without --max-tokens: "
              + ", ".join(f"{name} ({size[name]})" for name in longer))
    return {name: launch for name, launch in launches.items() if size[name] <= max_tokens}


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
    sample = ["--budget", str(args.budget)] if args.budget else []
    listing, _ = oracle.run(args.driver, "launches", "--out", work / "launches.json", *kernels, *sample)
    print(listing, end="")
    launches = within_budget(json.loads((work / "launches.json").read_text()), args.max_tokens)

    start = time.monotonic()
    model, cls = oracle.load_hf(ckpt)
    print(f"transformers loaded {ckpt.name} as {cls}, computing in {model.dtype}, in {time.monotonic() - start:.1f} s")
    exact, tokens, start = 0, 0, time.monotonic()
    groups = batches(launches, args.batch) if args.mode == "greedy" else ([item] for item in launches.items())
    for group in groups:
        t0 = time.monotonic()
        if args.mode == "greedy":
            streams = greedy(model, [launch for _, launch in group])
        else:
            streams = [teacher_forced(model, launch["fed"], launch["records"]) for _, launch in group]
        seconds = time.monotonic() - t0
        together = f", {len(group)} together" if len(group) > 1 else ""
        for (name, launch), written in zip(group, streams):
            at = first_difference(written, launch["records"])
            exact += at < 0
            tokens += len(launch["fed"]) + len(launch["records"])
            detail = "" if at < 0 else (f": first differs at record {at}: {written[at:at + 4]} vs "
                                        f"{launch['records'][at:at + 4]}")
            verdict.check(at < 0, f"{name}: {len(launch['records'])} records {args.mode} in transformers "
                                  f"({seconds:.1f} s{together}){detail}")
    print(f"{args.mode}, {args.dtype} weights: {exact} of {len(launches)} launches exact in transformers, "
          f"{tokens} tokens in {time.monotonic() - start:.0f} s")
    verdict.finish()


if __name__ == "__main__":
    main()
