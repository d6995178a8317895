/* A declaration whose symbol is not its name, as glibc's large-file
   interface declares lstat (its calls go to the symbol lstat64). */
extern int lfs_stat(const char *path, long *buf) __asm__("lfs_stat64");

int use_lfs(const char *p)
{
	long st;
	return lfs_stat(p, &st) + (int)st;
}
