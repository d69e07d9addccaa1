; One warp of straight-line integer code, then a store of each lane's result: the GPU inside the model
; runs it exactly (qgpu asm ... --backend model --check).
entry:
    sreg r1, tid.x
    add r2, r1, 5
    mul r3, r2, r2
    sub r4, r3, r1
    jmp store
store:
    st.global [r1 + $out], r4
    exit
