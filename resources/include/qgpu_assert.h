// assert for device code, as C's <assert.h> gives it: NDEBUG where this is included decides, so there is no
// include guard (<assert.h> and <cassert> are this text). A failed assertion: qgpu_printf.h.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __qgpu_assert_fail(#e, __FILE_NAME__, __LINE__, __PRETTY_FUNCTION__))
#endif
