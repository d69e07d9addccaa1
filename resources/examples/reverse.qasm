; Reverses an 8-element array in place through shared memory.
; The barrier makes every thread's shared write visible before any thread reads its mirror.
.shared 8
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $data]
    st.shared [r1], r2
    bar swap
swap:
    sreg r3, ntid.x
    sub r3, r3, r1
    ld.shared r4, [r3 - 1]              ; shared[ntid.x - 1 - tid.x]
    st.global [r1 + $data], r4
    exit
