// A bool mask and a bool result, one byte an element as on a GPU: keeps the elements whose mask is set and
// marks the positive ones. Four lanes of a warp read and write four bytes of one word.
__global__ void bool_mask(const int* a, const bool* mask, int* kept, bool* positive, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        kept[i] = mask[i] ? a[i] : 0;
        positive[i] = a[i] > 0;
    }
}
