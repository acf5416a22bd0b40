// out = max(x, 0) over 2-D bf16 tensors (TPC sizes [N, R]); one index-space point is one 128-lane vector
// of one row. Hand-scheduled to run under tpc-sim --strict-hazards (see add_f32.s).
.kernel main
.arch gaudi2
.param tensor x
.param tensor out
.scalar_local 0
.vector_local 0
main:
  nop ; mov_irf_dim.i32 s0, i0 dim=0 ; nop ; nop           // s0 = first vector column
  nop ; mov_irf_dim.i32 s1, i1 dim=0 ; nop ; nop           // s1 = number of vector columns
  nop ; mov_irf_dim.i32 s2, i0 dim=1 ; nop ; nop           // s2 = first row
  nop ; mov_irf_dim.i32 s3, i1 dim=1 ; nop ; nop           // s3 = number of rows
  nop ; add.i32 s1, s0, s1 ; nop ; nop                     // s1 = end column
  nop ; add.i32 s3, s2, s3 ; nop ; nop                     // s3 = end row
  nop ; shl.i32 s0, s0, 7 ; nop ; nop                      // columns in elements: 128 per vector
  nop ; i_mov.i32 i2, 0 dmask=0b11111 ; nop ; nop
  nop ; shl.i32 s1, s1, 7 ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; loop.i32 s10, s2, s3, 1 cmp=lt end=row_end ; nop ; nop
  nop ; i_mov.i32 i2, s10 dmask=0b00010 ; nop ; nop        // coordinate 1 = row
  nop ; loop.i32 s11, s0, s1, 128 cmp=lt end=col_end ; nop ; nop
  nop ; i_mov.i32 i2, s11 dmask=0b00001 ; nop ; nop        // coordinate 0 = column
  nop ; nop ; nop ; nop
  ld_tnsr.bf16 v0, i2 tnsr=0 ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; max.bf16 v1, v0, 0.0 ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
col_end:
  nop ; nop ; nop ; st_tnsr.bf16 i2, v1 tnsr=1
row_end:
  nop ; nop ; nop ; nop
  nop ; halt ; nop ; nop
