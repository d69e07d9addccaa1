; Every ALU, compare, sel and sreg opcode, blocks joined by jmp: the model backend runs it exactly.
b0:
    sreg r1, tid.x
    mov r2, 0x89abcdef
    add r3, r2, r1
    mul r4, r3, r3
    jmp b1
b1:
    shl r5, r2, r1
    shr r6, r2, 7
    sra r7, r2, r1
    and r8, r2, r4
    jmp b2
b2:
    or r9, r2, 0x0ff0
    xor r10, r2, r4
    not r11, r3
    min r12, r2, r1
    jmp b3
b3:
    max r12, r12, r5
    minu r13, r2, r1
    maxu r14, r2, r4
    seteq r15, r1, 2
    jmp b4
b4:
    setlt r15, r2, r1
    setgeu r14, r2, r1
    sel r13, r3, r4, r15
    sreg r9, laneid
    jmp b5
b5:
    sreg r10, ntid.x
    setne r11, r1, 0
    st.global [r1 + $out], r12
    exit
