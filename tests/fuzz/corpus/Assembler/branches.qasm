; Divergence and reconvergence on one warp (the min-PC rule): an if/else, a loop that each lane runs a
; different number of times, and lanes that exit early while the others go on.
entry:
    sreg r1, tid.x
    setlt r2, r1, 2
    br r2, low, high
low:
    mul r3, r1, 10
    jmp join
high:
    add r3, r1, 100
    jmp join
join:
    mov r4, 0
    mov r5, r1
    jmp loop
loop:
    add r4, r4, r5
    sub r5, r5, 1
    setgt r6, r5, 0
    br r6, loop, after
after:
    setge r7, r1, 3
    br r7, stop, tail
stop:
    mov r8, 77
    st.global [r1 + $out], r8
    exit
tail:
    add r9, r4, r3
    st.global [r1 + $out], r9
    exit
