// A user-written map into an int8 tensor (#rk.quant, f32 values rounded
// where stored) that clamps its values to [-128.0, 127.0] (rkc-int8-store.test).
func.func @clamp_int8_in_range(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>> {
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %y = rk.map %x {
  ^bb0(%a: f32):
    %l = arith.maxnumf %a, %lo : f32
    %h = arith.minnumf %l, %hi : f32
    rk.yield %h : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>
  return %y : tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>
}
