// Two registers (wires a[0] = 0, b[0] = 1, b[1] = 2), broadcasting, expressions and a statement over two lines.
// x a[0]                       -> |1>
// h b                          -> |+> on both wires of b
// u1(pi/2) b[1]                -> (|0> + i|1>)/sqrt(2) on wire 2
// rz(-2*pi) b[0]               -> a global phase of -1 on wire 1 (RZ(-2 pi) = -I)
// Expected state: -(|1>)(|+>)(|0> + i|1>)/sqrt(2): amplitudes 4..7 = -0.5, -0.5i, -0.5, -0.5i.
OPENQASM 2.0;
include "qelib1.inc";
qreg a[1];
qreg b[2];
x a[0];
h b;
u1(pi /
   2) b[1];
rz(-2*pi) b[0];
