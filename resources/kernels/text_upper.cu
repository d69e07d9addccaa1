// Text in a char array, as string kernels handle it: each thread upper-cases one letter in place, counts
// the occurrences of a character (a char scalar) in its warp with a ballot, and marks word starts in a
// bool array.
__global__ void text_upper(char* text, bool* wordStart, int* matches, char wanted, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    char c = i < n ? text[i] : ' ';
    unsigned found = __ballot_sync(0xffffffff, c == wanted);
    if (threadIdx.x % warpSize == 0) atomicAdd(matches, __popc(found));
    if (i >= n) return;
    wordStart[i] = c != ' ' && (i == 0 || text[i - 1] == ' ');
    if (c >= 'a' && c <= 'z') text[i] = c - 'a' + 'A';
}
