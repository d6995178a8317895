/* A function-local static object, which gcc-12 names tab.0 and clang-16
   names reg.tab (TestStaticLocalsAcrossCompilers). */
extern void use(int *p, int n);

void reg(int n)
{
	static int tab[4] = {1, 2, 3, 4};
	use(tab, n);
}
