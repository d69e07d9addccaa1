; out[i] = 1 + 2 + ... + n[i]: every lane runs its own number of loop iterations (zero included).
; Lanes that leave the loop wait at `done` until the rest of their warp gets there (min-PC reconvergence).
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $n]
    mov r3, 0                           ; sum
    mov r4, 1                           ; k
    jmp test
test:
    setle r5, r4, r2
    br r5, body, done
body:
    add r3, r3, r4
    add r4, r4, 1
    jmp test
done:
    st.global [r1 + $out], r3
    exit
