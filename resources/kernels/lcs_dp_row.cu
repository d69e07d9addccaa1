// Length of the longest common subsequence of two short strings per thread, by dynamic programming over
// one row kept in a local array (indexed at run time, so it lives in local memory).
__global__ void lcs_dp_row(const char* a, const char* b, const int* lengths, int* lcs) {
    int t = threadIdx.x;
    const char* s = a + 8 * t;
    const char* u = b + 8 * t;
    int n = lengths[2 * t], m = lengths[2 * t + 1];
    int row[9];
    for (int j = 0; j <= m; ++j) row[j] = 0;
    for (int i = 1; i <= n; ++i) {
        int diagonal = 0;
        for (int j = 1; j <= m; ++j) {
            int above = row[j];
            row[j] = s[i - 1] == u[j - 1] ? diagonal + 1 : max(above, row[j - 1]);
            diagonal = above;
        }
    }
    lcs[t] = row[m];
}
