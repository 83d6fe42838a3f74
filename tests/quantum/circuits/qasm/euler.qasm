/* U3 gates and controlled phases in the OpenQASM 3 subset.
   U(pi, 0, pi) = X on q[0]; u3(pi/2, 0, pi) = H on q[1]; cp(pi/2) q[1], q[0] adds i to |11>;
   u2(0, pi) = H on q[1] again.
   Before the last gate: |1>(|0> + i|1>)/sqrt(2); after it: |1>((1 + i)|0> + (1 - i)|1>)/2.
   Expected state: amplitudes 2, 3 = (1 + 1j)/2, (1 - 1j)/2. */
OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
U(pi, 0, pi) q[0];
u3(pi/2, 0, pi) q[1];
cp(pi/2) q[1], q[0];
u2(0, pi) q[1];
