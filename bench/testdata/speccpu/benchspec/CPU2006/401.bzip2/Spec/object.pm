$benchnum  = '401';
$benchname = 'bzip2';
$exename   = 'bzip2';
$benchlang = 'C';
@base_exe  = ($exename);

@sources=qw(spec.c
            lib/mix.c);

$bench_flags = '-DTOY_SHIFT=3 -Iinclude';

if ($^O =~ /MSWin32/i) {
  $bench_flags .= ' -DTOY_WINDOWS';
}

1;
