// cg::reduce and its operations are in <cooperative_groups.h>, which a kernel includes first.
