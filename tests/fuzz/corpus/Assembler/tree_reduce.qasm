; Sum of 8 values (two warps) with a shared-memory tree: strides 4, 2, 1 with a barrier after each level.
; Every thread runs every level (barriers must not be divergent); inactive threads rewrite their own value.
.shared 16
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $in]
    st.shared [r1], r2
    mov r3, 4                           ; stride
    bar level
level:
    setlt r4, r1, r3                    ; does this thread add at this level?
    ld.shared r5, [r1]
    add r6, r1, r3
    ld.shared r7, [r6]
    jmp combine
combine:
    add r7, r5, r7
    sel r5, r7, r5, r4                  ; the sum if active, else the old value
    st.shared [r1], r5
    shr r3, r3, 1
    bar next
next:
    br r3, level, finish
finish:
    seteq r8, r1, 0
    br r8, write, done
write:
    ld.shared r9, [r0]
    st.global [r0 + $out], r9
    exit
done:
    exit
