// Each thread sorts its own slice of the keys with a recursive quicksort (Lomuto partition, the last key as
// pivot), the way a textbook writes it, then reports how deep its recursion went: the slices hold differently
// ordered keys, so the threads recurse to different depths and diverge inside the recursion.
__device__ void swap_keys(int* keys, int a, int b) {
    int t = keys[a];
    keys[a] = keys[b];
    keys[b] = t;
}

__device__ int partition(int* keys, int lo, int hi) {
    int pivot = keys[hi];
    int store = lo;
    for (int i = lo; i < hi; ++i)
        if (keys[i] < pivot) swap_keys(keys, i, store++);
    swap_keys(keys, store, hi);
    return store;
}

__device__ int quicksort(int* keys, int lo, int hi, int depth) {
    if (lo >= hi) return depth;
    int p = partition(keys, lo, hi);
    int left = quicksort(keys, lo, p - 1, depth + 1);
    int right = quicksort(keys, p + 1, hi, depth + 1);
    return left > right ? left : right;
}

__global__ void recursive_quicksort(int* keys, int* depths, int slice) {
    int t = threadIdx.x;
    depths[t] = quicksort(keys, t * slice, t * slice + slice - 1, 0);
}
