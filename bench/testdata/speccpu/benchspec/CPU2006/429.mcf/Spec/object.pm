$benchnum  = '429';
$benchname = 'mcf';
$benchlang = 'C';
@sources=qw(mcf.c);
1;
