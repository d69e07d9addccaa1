"""The combined checkpoint inside transformers: `qgpu build --host` on a random host with Qwen3.5-2B's layer
pattern, heads and MLP. transformers loads the result as the host's class; on text its next-token
distribution stays the host's (KL, both computed by transformers); a launch runs exactly through every
layer, teacher-forced in one prefill and decoded greedily with transformers' cache."""
import json

import numpy as np
import torch

import oracle
from gpu import first_difference, greedy, teacher_forced


def extra(p):
    p.add_argument("--kernel", default="examples/dot_product")
    p.add_argument("--max-kl", type=float, default=1e-5)


def text_fidelity(host, combined, tokens, host_vocab):
    """KL(combined || host) of the next-token distribution over text, the combined model's given that the
    next token is text; and the largest probability mass of chip tokens."""
    with torch.no_grad():
        p = host(input_ids=torch.tensor([tokens])).logits[0].double()
        q = combined(input_ids=torch.tensor([tokens])).logits[0].double()
    log_p = torch.log_softmax(p, -1)
    log_q_text = torch.log_softmax(q[:, :host_vocab], -1)
    kl = (log_q_text.exp() * (log_q_text - log_p)).sum(-1)
    chip = torch.softmax(q, -1)[:, host_vocab:].sum(-1)
    return kl.max().item(), kl.mean().item(), chip.max().item()


def main():
    args = oracle.arguments(__doc__, extra)
    work = oracle.workdir(args)
    verdict = oracle.Verdict()
    host_dir, combined_dir = work / "host", work / "combined"
    oracle.run(args.driver, "random-checkpoint", "--geometry", "host", "--layers", 4, "--seed", 3, "--out", host_dir)
    _, seconds = oracle.run(args.qgpu, "build", "--host", host_dir, "--out", combined_dir, "--dtype", "f32")
    print(f"qgpu build --host: {seconds:.1f} s")
    layout = json.loads((combined_dir / "splice.json").read_text())
    host_vocab = layout["host_vocab"]

    host, host_cls = oracle.load_hf(host_dir)
    combined, combined_cls = oracle.load_hf(combined_dir)
    verdict.check(host_cls == combined_cls, f"transformers loads the host as {host_cls} and the combined "
                                            f"checkpoint as {combined_cls}, computing in {combined.dtype}")
    tokens = np.random.default_rng(5).integers(0, host_vocab, 128).tolist()
    max_kl, mean_kl, chip = text_fidelity(host, combined, tokens, host_vocab)
    verdict.check(max_kl <= args.max_kl, f"text, {len(tokens)} positions: KL(combined || host) max {max_kl:.2e}, "
                                         f"mean {mean_kl:.2e} (target <= {args.max_kl:.0e}); chip mass <= {chip:.1e}")
    del host

    oracle.run(args.driver, "launches", "--out", work / "launches.json", "--kernels", args.kernel)
    launch = json.loads((work / "launches.json").read_text())[args.kernel]
    fed = [host_vocab + t for t in launch["fed"]]
    records = [host_vocab + t for t in launch["records"]]
    def greedy_one(model, fed, records):
        return greedy(model, [{"fed": fed, "records": records}])[0]

    for mode, run in (("teacher-forced", teacher_forced), ("greedy", greedy_one)):
        at = first_difference(run(combined, fed, records), records)
        verdict.check(at < 0, f"{args.kernel}, {len(records)} records {mode} through all "
                              f"{layout['circuit_layers'] + layout['host_layers']} layers"
                              + ("" if at < 0 else f": first differs at record {at}"))
    verdict.finish()


if __name__ == "__main__":
    main()
