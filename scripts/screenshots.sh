#!/usr/bin/env bash
# Renders the studio mid-launch at 1280x800 under Xvfb into docs/screenshots/ (needs a built tree):
#   studio.png          the reference interpreter on tree_reduce.cu, 12 steps in, with the divergence timeline;
#   studio-model.png    the GPU inside the model on the dot product, 1 step in: the state decoded from the
#                       model's recurrent state and the token stream it wrote;
#   studio-layers.png   tree_reduce.cu in the model, 12 steps in: the layer view of the token going in;
#   studio-heatmap.png  the same moment: a head of the recurrent state as a heatmap;
#   studio-rom.png      the same launch: the ROM decoded from the model beside the machine blocks;
#   studio-results.png  tree_reduce.cu run to its end: the Results panel's verdict and the Warps panel;
#   studio-output.png   printf_trace.cu run to its end: what its printf calls printed, in the Output panel;
#   studio-problems.png a kernel that reads one element past its input's end, run to its end: the Problems
#                       panel's out-of-bounds read, with its step, thread and line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/docs/screenshots"
mkdir -p "$out"

shot() {  # NAME EXAMPLE STEPS BACKEND SECONDS PANELS (with the first-run window layout)
  XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -a -s "-screen 0 1280x800x24 -noreset" bash -c "
    export QT_QPA_PLATFORM=xcb
    '$root/build/app/qgpu-studio' '$2' --steps $3 --backend $4 --show '$6' &
    pid=\$!
    sleep $5
    import -window root '$out/$1'
    kill \$pid
  "
  echo "wrote $out/$1"
}

tree="$root/resources/kernels/tree_reduce.cu"
shot studio.png "$tree" 12 reference 4 "Warp divergence"
shot studio-model.png "$root/resources/examples/dot_product.cu" 1 model 10 "Token stream,Registers"
shot studio-layers.png "$tree" 12 model 12 "Steps,Layers"
shot studio-heatmap.png "$tree" 12 model 12 "Token stream,Recurrent state"
shot studio-rom.png "$tree" 12 model 12 "Steps,ROM,Machine blocks"
shot studio-results.png "$tree" 400 reference 4 "Results,Warps"
shot studio-output.png "$root/resources/kernels/printf_trace.cu" 400 reference 4 "Output,Warps"

# A kernel of the script's own: its last thread reads in[8], which is out[0] in global memory.
bug=$(mktemp -d)
cat > "$bug/pairs.cu" <<'CUDA'
// Sums of neighbours: out[i] = in[i] + in[i + 1]. The last thread reads one element past the end of in.
__global__ void pairs(const int* in, int* out) {
    int i = threadIdx.x;
    out[i] = in[i] + in[i + 1];
}
CUDA
cat > "$bug/pairs.json" <<'JSON'
{"block": 8, "args": [{"name": "in", "array": [1, 2, 3, 4, 5, 6, 7, 8]}, {"name": "out", "zeros": 8}]}
JSON
shot studio-problems.png "$bug/pairs.cu" 400 reference 4 "Results,Problems"
rm -r "$bug"
