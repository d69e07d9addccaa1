// Pairs of 64-bit keys and values held in longlong2 (one 16-byte access each): every thread swaps the key
// and value of its pair and accumulates both into a running longlong2 total.
__global__ void longlong2_swap(longlong2* pairs, longlong2* totals) {
    int t = threadIdx.x;
    longlong2 p = pairs[t];
    pairs[t] = make_longlong2(p.y, p.x);
    totals[t] = make_longlong2(p.x + p.y, p.x - p.y);
}
