/* Error codes of the gtt library: every public function returns 0 (or a count) on success and
 * one of these on failure.  Kept in one place so all headers agree. */
#ifndef GTT_ERR_H
#define GTT_ERR_H

#define GTT_EINVAL   (-1)  /* malformed parameters (zero sizes, misalignment, NULL) */
#define GTT_ENOSPC   (-2)  /* the requests do not fit; the message says what and by how much */
#define GTT_ETOOMANY (-3)  /* more guests than GTT_MAX_VGPUS */
#define GTT_ERANGE   (-4)  /* index or range outside the vGPU's ranges */
#define GTT_EPERM    (-5)  /* guest write targets a page that is not the guest's RAM */
#define GTT_ENOMEM   (-6)  /* allocation failed */
#define GTT_ENOENT   (-7)  /* no such vGPU, fence or range */
#define GTT_EEXIST   (-8)  /* vGPU id already in use */
#define GTT_ELIMIT   (-9)  /* balloon beyond the vGPU's min/max or the slot count */
#define GTT_EFULL    (-10) /* fence pool or physical fence registers exhausted */
#define GTT_EBUSY    (-11) /* the vGPU cannot be re-placed now (its fences pin its window) */

/* A short name for an error code ("no space", ...), for messages. */
const char *gtt_strerror(int code);

#endif
