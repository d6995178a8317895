$benchnum  = '433';
$benchname = 'milc';
$benchlang = 'C';
@sources=qw(milc.c);
1;
