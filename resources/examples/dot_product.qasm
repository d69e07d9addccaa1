; Dot product of two 3-element vectors: out[0] = sum of a[i] * b[i].
; One thread per element; the products meet in global memory through an atomic add.
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $a]
    ld.global r3, [r1 + $b]
    mul r4, r2, r3
    jmp accumulate
accumulate:
    atom.global r5, [r0 + $out], r4     ; r5 = the partial sum before this lane's add
    exit
