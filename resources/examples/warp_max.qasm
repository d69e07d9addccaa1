; Signed maximum of each thread block's 4 values with a butterfly (shfl.bfly 1, then 2): out[ctaid.x].
entry:
    sreg r1, ctaid.x
    mul r2, r1, 4
    sreg r3, tid.x
    add r2, r2, r3
    jmp reduce
reduce:
    ld.global r4, [r2 + $values]
    shfl.bfly r5, r4, 1, 4
    max r4, r4, r5
    shfl.bfly r5, r4, 2, 4
    jmp finish
finish:
    max r4, r4, r5
    st.global [r1 + $out], r4           ; every lane holds the maximum; they store the same word
    exit
