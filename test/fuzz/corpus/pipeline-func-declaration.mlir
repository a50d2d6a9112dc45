
// Generic ops.

// Every builtin kind; argmax / argmin have a second (index) result.
// CHECK-LABEL: func.func @reduce_builtin
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xbf16>, %[[I:.*]]: tensor<?x?xi32>)
// CHECK:         %[[ADD:.*]] = rk.reduce add %[[X]] : tensor<?x?xbf16> -> tensor<?xf32>
// CHECK:         %[[MUL:.*]] = rk.reduce mul %[[X]] : tensor<?x?xbf16> -> tensor<?xf32>
// CHECK:         %[[MAX:.*]] = rk.reduce max %[[X]] : tensor<?x?xbf16> -> tensor<?xbf16>
// CHECK:         %[[MIN:.*]] = rk.reduce min %[[I]] : tensor<?x?xi32> -> tensor<?xi32>
// CHECK:         %[[AMAX:.*]]:2 = rk.reduce argmax %[[X]] : tensor<?x?xbf16> -> tensor<?xf32>,`tensor<?xi64>
// CHECK:         %[[AMIN:.*]]:2 = rk.reduce argmin %[[I]] : tensor<?x?xi32> -> tensor<?xi32>, tensor<?xi32>
// CHECK:         return %[[ADD]], %[[MUL]], %[[MAin %[[I]] : tensor<?x?xi32> -> tensor<?xi32>
// CHECK:         %[[AMAX:.*]]:2 = rk.reduce argmax %[[X]nc.func @broadcast
// CHECK-SAME:    (%[[V:.*]]%[ivate @dtype_decl(tensor<?x!rk.dtype>, !rk.dtype) -> !rk.dtype
func.func private @dtype_decl(tensor<?x!rk.dtype>, !rk.dtype) -> !rk.dtype
