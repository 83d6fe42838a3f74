// Three-qubit GHZ state in the OpenQASM 3 subset.
// Expected state: (|000> + |111>)/sqrt(2).
OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[3] c;
h q[0];
cx q[0], q[1];
cx q[1], q[2];
c = measure q;
