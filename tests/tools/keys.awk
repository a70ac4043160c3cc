# The key lines of the big Diesel documents the memory-bound tests encode, N of them
# (awk -v n=N -f keys.awk), written by awk: a million lines in ~0.4 CPU s, where a
# Python list of them took ~3 s.
#   kind=pos (the default): "- [T, Y, X, 0.0]", T = i / 2^shift (shift 20 unless given),
#                           Y = -v y (0.0 unless given), X = (i % 512) / 4
#   kind=rot:               "- [T, 0.000, 0.000, Z, 1.000]", Z = -v z0 for an even i,
#                           -v z1 for an odd one
# Each number is the double Python's repr gave (%.17g reads back as the same double;
# an integer gets ".0", as repr wrote it).
function num(x, s) {
	s = sprintf("%.17g", x)
	if (s !~ /[.e]/)
		s = s ".0"
	return s
}
BEGIN {
	scale = 2 ^ (shift == "" ? 20 : shift)
	if (y == "")
		y = "0.0"
	for (i = 0; i < n; i++)
		if (kind == "rot")
			printf "        - [%s, 0.000, 0.000, %s, 1.000]\n", num(i / scale), (i % 2 ? z1 : z0)
		else
			printf "        - [%s, %s, %s, 0.0]\n", num(i / scale), y, num((i % 512) / 4)
}
