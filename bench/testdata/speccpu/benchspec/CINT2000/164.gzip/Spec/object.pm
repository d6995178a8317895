$benchnum  = '164';
$benchname = 'gzip';
$benchlang = 'C';
@sources = qw( bits.c );
1;
