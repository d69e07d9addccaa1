// CRC-32 (the reflected polynomial 0xEDB88320) of one short message per thread, bit by bit without a
// table, as checksum kernels on small records compute it.
__global__ void crc32_bytes(const unsigned char* messages, const int* lengths, unsigned* crcs) {
    int t = threadIdx.x;
    const unsigned char* m = messages + 8 * t;
    unsigned crc = 0xffffffffu;
    for (int i = 0; i < lengths[t]; ++i) {
        crc ^= m[i];
        for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    crcs[t] = ~crc;
}
