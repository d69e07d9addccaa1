"""Our runtime against transformers' Qwen3.5 on a random checkpoint our code writes: the logits after a
prefill of a long prompt and after each cached decode step, in fp32 (and, reported, transformers in bf16)."""
import json

import numpy as np
import torch
from safetensors.numpy import load_file

import oracle


def extra(p):
    p.add_argument("--geometry", choices=["tiny", "2b"], required=True)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--layout", choices=["text", "multimodal"], default="multimodal")
    p.add_argument("--dtype", choices=["f32", "bf16"], default="f32", help="the checkpoint's weights")
    p.add_argument("--prompt", type=int, default=256)
    p.add_argument("--decode", type=int, default=32)
    p.add_argument("--tolerance", type=float, default=1e-4, help="of the logits' range, fp32")


def hf_logits(model, prompt, decode):
    """Prefill, then one token at a time with transformers' own cache."""
    with torch.no_grad():
        out = model(input_ids=torch.tensor([prompt]), use_cache=True)
        cache, rows = out.past_key_values, [out.logits[0, -1].float().numpy()]
        for t in decode:
            out = model(input_ids=torch.tensor([[t]]), past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            rows.append(out.logits[0, -1].float().numpy())
    return np.stack(rows)


def relative_difference(ours, reference):
    """max |ours - reference| over each row, divided by that row's range in the reference."""
    span = reference.max(axis=1) - reference.min(axis=1)
    return np.abs(ours - reference).max(axis=1) / span


def main():
    args = oracle.arguments(__doc__, extra)
    work = oracle.workdir(args)
    verdict = oracle.Verdict()
    ckpt = work / f"{args.geometry}-{args.layout}-{args.dtype}"
    _, seconds = oracle.run(args.driver, "random-checkpoint", "--geometry", args.geometry, "--layers", args.layers,
                            "--layout", args.layout, "--dtype", args.dtype, "--seed", 7, "--out", ckpt)
    print(f"our runtime wrote {ckpt.name} in {seconds:.1f} s")
    vocab = json.loads((ckpt / "config.json").read_text())
    vocab = vocab.get("text_config", vocab)["vocab_size"]
    rng = np.random.default_rng(11)
    prompt = rng.integers(0, vocab, args.prompt).tolist()
    decode = rng.integers(0, vocab, args.decode).tolist()
    (work / "tokens.json").write_text(json.dumps({"prompt": prompt, "decode": decode}))
    _, seconds = oracle.run(args.driver, "logits", "--model", ckpt, "--tokens", work / "tokens.json",
                            "--out", work / "ours.safetensors")
    ours = load_file(str(work / "ours.safetensors"))
    ours = np.concatenate([ours["prefill"][None], ours["decode"]])
    print(f"our runtime: prefill of {len(prompt)} tokens and {len(decode)} decode steps in {seconds:.1f} s")

    model, cls = oracle.load_hf(ckpt, torch.float32)
    verdict.check(cls == ("Qwen3_5ForConditionalGeneration" if args.layout == "multimodal" else "Qwen3_5ForCausalLM"),
                  f"transformers loads it as {cls}")
    reference = hf_logits(model, prompt, decode)
    diff = relative_difference(ours, reference)
    verdict.check(diff.max() <= args.tolerance,
                  f"fp32: max |ours - transformers| / range = {diff.max():.2e} (prefill {diff[0]:.2e}, decode steps "
                  f"up to {diff[1:].max():.2e}), tolerance {args.tolerance:.0e}")
    same = (ours.argmax(axis=1) == reference.argmax(axis=1)).sum()
    print(f"        argmax equal at {same} of {len(diff)} positions")
    del model

    bf16, _ = oracle.load_hf(ckpt, torch.bfloat16)
    low = relative_difference(ours, hf_logits(bf16, prompt, decode))
    print(f"report  transformers in bf16 against our fp32: max |difference| / range = {low.max():.2e}")
    verdict.finish()


if __name__ == "__main__":
    main()
