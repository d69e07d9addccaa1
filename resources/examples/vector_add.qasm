; c[i] = a[i] + b[i] for i < n, with i = ctaid.x * ntid.x + tid.x.
; The grid has more threads than elements, so the tail threads must skip the store
; (the "guard" array right after c catches any write past the end).
entry:
    sreg r1, ctaid.x
    sreg r2, ntid.x
    sreg r3, tid.x
    mul r1, r1, r2
    jmp index
index:
    add r1, r1, r3
    setlt r4, r1, $n
    br r4, body, done
body:
    ld.global r5, [r1 + $a]
    ld.global r6, [r1 + $b]
    add r7, r5, r6
    st.global [r1 + $c], r7
    jmp done
done:
    exit
