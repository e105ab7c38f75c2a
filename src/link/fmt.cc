// {fmt}'s compiled part, built here from Debian's headers (libfmt-dev) instead
// of loaded from libfmt.so: executables link it statically, so `rlcost` starts
// without the dynamic loader (CMakeLists.txt, "Start-up"; docs/performance.md).
// Outside FMT_HEADER_ONLY, format-inl.h holds the out-of-line definitions of the
// functions format.h declares; the two templates below are the ones those
// definitions call that no header instantiates.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl<char>(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
