; Inclusive prefix sum of 8 values: a shfl.up scan inside each 4-lane warp (offsets 1, 2),
; then lane 3 of each warp publishes the warp total in shared memory and warp 1 adds warp 0's total.
.shared 2
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $in]
    sreg r3, laneid
    shfl.up r4, r2, 1, 4
    jmp step1
step1:
    setge r5, r3, 1
    sel r4, r4, 0, r5                   ; lanes with nothing below them add 0
    add r2, r2, r4
    shfl.up r4, r2, 2, 4
    jmp step2
step2:
    setge r5, r3, 2
    sel r4, r4, 0, r5
    add r2, r2, r4                      ; inclusive scan within the warp
    seteq r5, r3, 3
    br r5, total, sync
total:
    sreg r6, warpid
    st.shared [r6], r2
    jmp sync
sync:
    bar fix
fix:
    ld.shared r7, [r0]                  ; warp 0's total
    setge r5, r1, 4
    sel r7, r7, 0, r5                   ; only threads of warp 1 add it
    add r2, r2, r7
    jmp store
store:
    st.global [r1 + $out], r2
    exit
