// atomicAdd's returned value: every thread draws a ticket; the tickets are a permutation of 0..n-1,
// so seen[] ends all ones and ctr[1] sums the tickets, whatever the order.
__global__ void atomic_ticket(int* ctr, int* seen) {
    int old = atomicAdd(&ctr[0], 1);
    seen[old] = 1;
    atomicAdd(&ctr[1], old);
}
