// Bit fields: extraction at constant and run-time positions (zero- and sign-extended), and insertion.
__global__ void bit_fields(const unsigned* words, unsigned* fields, int* signedFields, unsigned* inserted, int width) {
    int i = threadIdx.x;
    unsigned v = words[i];
    fields[i] = (v >> 2) & 7;
    fields[i + 4] = (v >> (i * 5)) & ((1u << width) - 1);
    signedFields[i] = (int)(v << 3) >> 27;
    signedFields[i + 4] = (int)(v << (24 - i * 4)) >> (32 - width);
    inserted[i] = (v & ~0xF0u) | ((i & 0xFu) << 4);
    inserted[i + 4] = (v & ~(0xFFu << (i * 8))) | (0x5Au << (i * 8));
}
