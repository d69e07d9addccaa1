; Step (a) of the GPU inside the model: one warp, straight-line integer code.
    sreg r1, tid.x
    add r2, r1, 5
    mul r3, r2, r2
    sub r4, r3, r1
    exit
