// Transactions applied to an array of structs (id, balance, limit, flags), one record per thread, as
// business-logic kernels keep their records: a withdrawal past the limit is refused and flagged.
struct Account {
    int id;
    int balance;
    int limit;
    int flags;
};

__global__ void account_records(Account* accounts, const int* amounts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Account a = accounts[i];
    int next = a.balance + amounts[i];
    if (next < -a.limit) {
        a.flags |= 1;
    } else {
        a.balance = next;
        a.flags &= ~1;
    }
    if (a.balance < 0) a.flags |= 2;
    accounts[i] = a;
}
