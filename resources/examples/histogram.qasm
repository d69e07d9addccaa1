; Counts 16 values (0..3) into 4 bins with atomic adds; many lanes hit the same bin in one step.
entry:
    sreg r1, ctaid.x
    sreg r2, ntid.x
    sreg r3, tid.x
    mul r1, r1, r2
    jmp count
count:
    add r1, r1, r3
    ld.global r4, [r1 + $values]
    mov r5, 1
    atom.global r6, [r4 + $hist], r5
    exit
